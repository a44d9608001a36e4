#include "shared_reads.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "errors.h"

namespace ocvector {

std::shared_ptr<IndexHolder> SharedReads::Get(
    const std::string& key, const std::function<std::shared_ptr<IndexHolder>()>& read) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = reads_.begin(); it != reads_.end();) {
    it = it->second.expired() ? reads_.erase(it) : std::next(it);
  }
  if (auto live = reads_[key].lock()) return live;
  std::shared_ptr<IndexHolder> holder = read();
  holder->sharedRead = true;
  reads_[key] = holder;
  return holder;
}

int SharedReads::Live() {
  std::lock_guard<std::mutex> lock(mutex_);
  int live = 0;
  for (const auto& entry : reads_) live += entry.second.expired() ? 0 : 1;
  return live;
}

SharedReads& SharedReads::Instance() {
  // Never destroyed: worker threads may drop their last reference while the process exits.
  static SharedReads* instance = new SharedReads();
  return *instance;
}

std::string FileIdentity(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    throw NativeError(ErrorCode::Io, "cannot read " + path + ": " + std::strerror(errno));
  }
  return path + '\n' + std::to_string(info.st_dev) + ':' + std::to_string(info.st_ino) + ':' +
         std::to_string(info.st_size) + ':' + std::to_string(info.st_mtim.tv_sec) + '.' +
         std::to_string(info.st_mtim.tv_nsec);
}

}  // namespace ocvector
