// The shared libraries every Linux with glibc and a C++ runtime has: the
// prebuilt addon never ships them (scripts/prebuild.mjs), and its test
// accepts them from outside the package.
export const BASE_LIBRARIES = /^(linux-vdso|ld-linux[^/]*|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so/;
