// Index files read once per process. A searcher pool opens the same index on
// every worker thread; read with `shared`, they all hold one FAISS index in
// memory instead of one each. The registry holds its entries weakly: the
// index is freed when the last thread closes it. A shared index is read-only
// (IndexHolder::sharedRead): whoever must change it reads the file again
// without sharing.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "index_holder.h"

namespace ocvector {

class SharedReads {
 public:
  // The live index read from the file `key` names (its identity: see
  // FileIdentity), or a new one from `read`. Reads of any file wait for one
  // another, so that two threads opening one file read it once.
  std::shared_ptr<IndexHolder> Get(const std::string& key,
                                   const std::function<std::shared_ptr<IndexHolder>()>& read);

  // How many shared indexes are alive now (for tests).
  int Live();

  static SharedReads& Instance();

 private:
  std::mutex mutex_;
  std::map<std::string, std::weak_ptr<IndexHolder>> reads_;
};

// A file's identity: path, device, inode, size and modification time. A file
// written again (even under the same name) is another index.
std::string FileIdentity(const std::string& path);

}  // namespace ocvector
