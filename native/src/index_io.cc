#include "index_io.h"

#include <faiss/IndexIDMap.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "errors.h"
#include "xxhash64.h"

namespace ocvector {
namespace {

constexpr char kMagic[8] = {'O', 'C', 'V', 'E', 'C', 'I', 'D', 'X'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 32;

struct Header {
  uint32_t version = kFormatVersion;
  uint32_t flags = 0;
  uint64_t payloadLength = 0;
  uint64_t checksum = 0;
};

void EncodeHeader(const Header& header, uint8_t* out) {
  std::memcpy(out, kMagic, 8);
  std::memcpy(out + 8, &header.version, 4);
  std::memcpy(out + 12, &header.flags, 4);
  std::memcpy(out + 16, &header.payloadLength, 8);
  std::memcpy(out + 24, &header.checksum, 8);
}

bool HasMagic(const uint8_t* data, size_t size) {
  return size >= sizeof(kMagic) && std::memcmp(data, kMagic, sizeof(kMagic)) == 0;
}

Header DecodeHeader(const uint8_t* data, size_t size, const std::string& what) {
  if (size < kHeaderSize) {
    throw NativeError(ErrorCode::Corrupt, what + " is truncated: the header is incomplete");
  }
  Header header;
  std::memcpy(&header.version, data + 8, 4);
  std::memcpy(&header.flags, data + 12, 4);
  std::memcpy(&header.payloadLength, data + 16, 8);
  std::memcpy(&header.checksum, data + 24, 8);
  if (header.version != kFormatVersion) {
    throw NativeError(ErrorCode::Corrupt,
                      what + " has container version " + std::to_string(header.version) +
                          ", this build reads version " + std::to_string(kFormatVersion));
  }
  return header;
}

std::string SystemError(const std::string& action, const std::string& path) {
  return action + " " + path + ": " + std::strerror(errno);
}

// Streams FAISS's serialisation to a FILE while hashing it.
struct HashingFileWriter : faiss::IOWriter {
  explicit HashingFileWriter(FILE* file) : file(file) {}
  size_t operator()(const void* ptr, size_t size, size_t nitems) override {
    size_t written = std::fwrite(ptr, size, nitems, file);
    hash.Update(ptr, size * written);
    length += size * written;
    return written;
  }
  FILE* file;
  Xxh64 hash;
  uint64_t length = 0;
};

// Appends FAISS's serialisation to a byte vector (after a reserved header).
struct VectorAppendWriter : faiss::IOWriter {
  explicit VectorAppendWriter(std::vector<uint8_t>& out) : out(out) {}
  size_t operator()(const void* ptr, size_t size, size_t nitems) override {
    const uint8_t* bytes = static_cast<const uint8_t*>(ptr);
    out.insert(out.end(), bytes, bytes + size * nitems);
    return nitems;
  }
  std::vector<uint8_t>& out;
};

// Reads from memory that this reader does not own.
struct SpanReader : faiss::IOReader {
  SpanReader(const uint8_t* data, size_t size) : data(data), size(size) {}
  size_t operator()(void* ptr, size_t itemSize, size_t nitems) override {
    if (itemSize == 0 || pos >= size) return 0;
    size_t available = (size - pos) / itemSize;
    size_t count = nitems < available ? nitems : available;
    std::memcpy(ptr, data + pos, count * itemSize);
    pos += count * itemSize;
    return count;
  }
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
};

// An id map whose table does not match the index under it would turn search
// results into reads past the end of the table: refused at load.
void CheckIdMap(const faiss::Index& index, const std::string& what) {
  const auto* idMap = dynamic_cast<const faiss::IndexIDMap*>(&index);
  if (idMap == nullptr) return;
  const size_t entries = idMap->id_map.size();
  if (idMap->index == nullptr || static_cast<int64_t>(entries) != idMap->index->ntotal ||
      idMap->ntotal != idMap->index->ntotal) {
    throw NativeError(ErrorCode::Corrupt,
                      what + " is damaged: its id map has " + std::to_string(entries) +
                          " entries for " +
                          std::to_string(idMap->index ? idMap->index->ntotal : 0) + " vectors");
  }
  const auto* idMap2 = dynamic_cast<const faiss::IndexIDMap2*>(&index);
  if (idMap2 != nullptr && idMap2->rev_map.size() != entries) {
    throw NativeError(ErrorCode::Corrupt, what + " is damaged: its id map holds duplicate ids");
  }
  for (int64_t id : idMap->id_map) {
    if (id < 0)
      throw NativeError(ErrorCode::Corrupt, what + " is damaged: its id map holds a negative id");
  }
}

std::unique_ptr<faiss::Index> ParsePayload(faiss::IOReader& reader, const std::string& what) {
  std::unique_ptr<faiss::Index> index;
  try {
    RunTranslatingErrors([&] { index.reset(faiss::read_index(&reader)); }, ErrorCode::Corrupt);
  } catch (const NativeError& e) {
    if (e.code() != ErrorCode::Corrupt) throw;
    throw NativeError(ErrorCode::Corrupt, what + " is not a valid index (" + e.what() + ")");
  }
  if (!index) throw NativeError(ErrorCode::Corrupt, what + " holds no index");
  CheckIdMap(*index, what);
  return index;
}

// Bytes without the container's header and checksum reach FAISS's parser,
// which trusts its input: only when the caller asked for a plain FAISS file.
void RequirePlainAllowed(bool allowPlain, const std::string& what) {
  if (allowPlain) return;
  throw NativeError(ErrorCode::Corrupt,
                    what +
                        " has no ocvector header (OCVECIDX), so its checksum cannot be verified; "
                        "pass plainFaiss: true to read a plain FAISS file you trust");
}

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
}

struct FileCloser {
  void operator()(FILE* file) const {
    if (file != nullptr) std::fclose(file);
  }
};
using UniqueFile = std::unique_ptr<FILE, FileCloser>;

void FsyncDirectoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: the rename itself already happened
  ::fsync(fd);
  ::close(fd);
}

std::string TempPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

void WriteIndexFile(const faiss::Index& index, const std::string& path) {
  const std::string temp = TempPathFor(path);
  // Private (0600) whatever the umask: the index describes the code it was built from.
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  UniqueFile file(fd < 0 ? nullptr : ::fdopen(fd, "wb"));
  if (!file) {
    const std::string message = SystemError("cannot write " + path + ": cannot create", temp);
    if (fd >= 0) ::close(fd);
    throw NativeError(ErrorCode::Io, message);
  }
  try {
    uint8_t header[kHeaderSize] = {};
    if (std::fwrite(header, 1, kHeaderSize, file.get()) != kHeaderSize) {
      throw NativeError(ErrorCode::Io, SystemError("cannot write", temp));
    }
    HashingFileWriter writer(file.get());
    RunTranslatingErrors([&] { faiss::write_index(&index, &writer); }, ErrorCode::Io);
    Header fields;
    fields.payloadLength = writer.length;
    fields.checksum = writer.hash.Digest();
    EncodeHeader(fields, header);
    if (std::fseek(file.get(), 0, SEEK_SET) != 0 ||
        std::fwrite(header, 1, kHeaderSize, file.get()) != kHeaderSize ||
        std::fflush(file.get()) != 0 || ::fsync(::fileno(file.get())) != 0) {
      throw NativeError(ErrorCode::Io, SystemError("cannot write", temp));
    }
    FILE* raw = file.release();
    if (std::fclose(raw) != 0) throw NativeError(ErrorCode::Io, SystemError("cannot close", temp));
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
      throw NativeError(ErrorCode::Io, SystemError("cannot rename " + temp + " to", path));
    }
  } catch (...) {
    file.reset();
    std::remove(temp.c_str());
    throw;
  }
  FsyncDirectoryOf(path);
}

std::unique_ptr<faiss::Index> ReadIndexFile(const std::string& path, bool allowPlain) {
  const std::string what = "index file " + path;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  // forever. Anything but a regular file is refused before a byte is read.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw NativeError(ErrorCode::Io, SystemError("cannot open", path));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const std::string message = SystemError("cannot stat", path);
    ::close(fd);
    throw NativeError(ErrorCode::Io, message);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw NativeError(ErrorCode::Io,
                      path + " is " + FileKind(info.st_mode) + ", not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  UniqueFile file(::fdopen(fd, "rb"));
  if (!file) {
    const std::string message = SystemError("cannot open", path);
    ::close(fd);
    throw NativeError(ErrorCode::Io, message);
  }
  const uint64_t fileSize = static_cast<uint64_t>(info.st_size);

  uint8_t header[kHeaderSize] = {};
  size_t got = std::fread(header, 1, kHeaderSize, file.get());
  if (!HasMagic(header, got)) {
    RequirePlainAllowed(allowPlain, what);
    // A plain FAISS file: let FAISS parse it from the start.
    std::rewind(file.get());
    faiss::FileIOReader reader(file.get());
    return ParsePayload(reader, what);
  }
  Header fields = DecodeHeader(header, got, what);
  if (fields.payloadLength != fileSize - kHeaderSize) {  // fileSize >= header: it was read
    throw NativeError(ErrorCode::Corrupt,
                      what + " is truncated or damaged: the header announces a payload of " +
                          std::to_string(fields.payloadLength) + " bytes, the file holds " +
                          std::to_string(fileSize - kHeaderSize));
  }
  // First pass: verify the checksum in fixed-size chunks (no second copy of a
  // large index in memory); second pass: let FAISS parse the verified bytes.
  std::vector<uint8_t> chunk(1 << 22);
  Xxh64 hash;
  uint64_t remaining = fields.payloadLength;
  while (remaining > 0) {
    size_t want = remaining < chunk.size() ? static_cast<size_t>(remaining) : chunk.size();
    size_t n = std::fread(chunk.data(), 1, want, file.get());
    if (n != want) throw NativeError(ErrorCode::Io, SystemError("cannot read", path));
    hash.Update(chunk.data(), n);
    remaining -= n;
  }
  if (hash.Digest() != fields.checksum) {
    throw NativeError(ErrorCode::Corrupt, what + " is damaged: checksum mismatch");
  }
  std::vector<uint8_t>().swap(chunk);
  if (std::fseek(file.get(), kHeaderSize, SEEK_SET) != 0) {
    throw NativeError(ErrorCode::Io, SystemError("cannot seek", path));
  }
  faiss::FileIOReader reader(file.get());
  return ParsePayload(reader, what);
}

std::vector<uint8_t> SerializeIndex(const faiss::Index& index) {
  std::vector<uint8_t> out(kHeaderSize, 0);
  VectorAppendWriter writer(out);
  RunTranslatingErrors([&] { faiss::write_index(&index, &writer); });
  Header fields;
  fields.payloadLength = out.size() - kHeaderSize;
  fields.checksum = Xxh64Of(out.data() + kHeaderSize, out.size() - kHeaderSize);
  EncodeHeader(fields, out.data());
  return out;
}

std::unique_ptr<faiss::Index> DeserializeIndex(const uint8_t* data, size_t size, bool allowPlain) {
  const std::string what = "index buffer";
  if (!HasMagic(data, size)) {
    RequirePlainAllowed(allowPlain, what);
    SpanReader reader(data, size);
    return ParsePayload(reader, what);
  }
  Header fields = DecodeHeader(data, size, what);
  if (fields.payloadLength != size - kHeaderSize) {  // size >= header: decoded
    throw NativeError(ErrorCode::Corrupt,
                      what + " is truncated or damaged: the header announces a payload of " +
                          std::to_string(fields.payloadLength) + " bytes, the buffer holds " +
                          std::to_string(size - kHeaderSize));
  }
  if (Xxh64Of(data + kHeaderSize, fields.payloadLength) != fields.checksum) {
    throw NativeError(ErrorCode::Corrupt, what + " is damaged: checksum mismatch");
  }
  SpanReader reader(data + kHeaderSize, fields.payloadLength);
  return ParsePayload(reader, what);
}

}  // namespace ocvector
