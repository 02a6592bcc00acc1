# SPDX-License-Identifier: GPL-2.0-or-later
# zdeb-compiler.m4 - probe each warning flag into WARN_CFLAGS.
AC_DEFUN([ZDEB_COMPILER_WARNINGS], [
  WARN_CFLAGS=
  AC_LANG_PUSH([C])
  # style.md's set; no -Wno-*: an unused parameter says (void)x, a
  # format that is no literal comes through a format attribute.
  for flag in -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
      -Wmissing-prototypes -Wvla -Wwrite-strings -Wpointer-arith \
      -Wcast-align -Wimplicit-fallthrough -Wundef -Wnull-dereference \
      -Wdeclaration-after-statement; do
    AC_MSG_CHECKING([whether $CC accepts $flag])
    save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -Werror $flag"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes]); WARN_CFLAGS="$WARN_CFLAGS $flag"],
      [AC_MSG_RESULT([no])])
    CFLAGS=$save_CFLAGS
  done
  AC_LANG_POP([C])
  AC_SUBST([WARN_CFLAGS])
])

# AX_PTHREAD_SIMPLE - find the flags for POSIX threads (glibc: -pthread).
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  PTHREAD_CFLAGS=-pthread
  PTHREAD_LIBS=-pthread
  save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS $PTHREAD_CFLAGS"
  AC_CHECK_FUNC([pthread_create], [],
    [AC_MSG_ERROR([POSIX threads are required])])
  CFLAGS=$save_CFLAGS
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])
