# find_package(nextstep): the targets nextstep::nextstep (libnextstep.so: the stable API of
# <nextstep/nextstep.h>) and nextstep::nextstep_static (libnextstep.a: also the unstable tier, with
# NEXTSTEP_STATIC_LINKING_ONLY defined before the include). Their dependencies are found as the build found
# them: cJSON, zlib and PCRE2 through pkg-config, and the threads library (libsqlite3 is opened at run time
# when an Nsight Systems export is read).
include(CMakeFindDependencyMacro)
find_dependency(Threads)
find_dependency(PkgConfig)

# In a function, so that pkg_check_modules' variables (ZLIB_FOUND, ...) stay out of the caller's scope; the
# imported targets it makes are the directory's.
function(_nextstep_dependencies)
  foreach(pair CJSON=libcjson ZLIB=zlib PCRE2=libpcre2-8)
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 prefix)
    list(GET pair 1 module)
    if(NOT TARGET PkgConfig::${prefix})
      pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
      if(NOT ${prefix}_FOUND)
        set(nextstep_FOUND FALSE PARENT_SCOPE)
        set(nextstep_NOT_FOUND_MESSAGE "nextstep needs ${module} (pkg-config cannot find it)" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
endfunction()
_nextstep_dependencies()

if(NOT DEFINED nextstep_FOUND OR nextstep_FOUND)
  include(${CMAKE_CURRENT_LIST_DIR}/nextstepTargets.cmake)
endif()
