//! The unwinder's entry points, answered here so that the release binary does not load the C
//! unwinder library (`libgcc_s`) at every start. Its loading and its start-up code (which
//! probes the processor) took longer than everything `gsd statusline` itself does. A release
//! build aborts on panic, so nothing ever unwinds: Rust's standard library only names these
//! functions, for the unwinding it never does here and for a panic's backtrace, which is now
//! empty (the panic message itself is printed as before). Debug and test builds unwind, and
//! keep the real library.
//!
//! The loader keeps a library only for the symbols a program takes from it; with these defined
//! here, none is taken from `libgcc_s`, and the link leaves it out (`ldd` shows libc alone).

use std::ffi::c_void;

/// `_URC_END_OF_STACK`: a backtrace ends before its first frame.
const END_OF_STACK: i32 = 5;

#[unsafe(no_mangle)]
extern "C" fn _Unwind_Backtrace(_trace: *mut c_void, _argument: *mut c_void) -> i32 {
    END_OF_STACK
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_Resume(_exception: *mut c_void) -> ! {
    std::process::abort()
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_FindEnclosingFunction(_pc: *mut c_void) -> *mut c_void {
    std::ptr::null_mut()
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_GetLanguageSpecificData(_context: *mut c_void) -> *mut c_void {
    std::ptr::null_mut()
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_GetCFA(_context: *mut c_void) -> usize {
    0
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_GetDataRelBase(_context: *mut c_void) -> usize {
    0
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_GetTextRelBase(_context: *mut c_void) -> usize {
    0
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_GetRegionStart(_context: *mut c_void) -> usize {
    0
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_GetIP(_context: *mut c_void) -> usize {
    0
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_GetIPInfo(_context: *mut c_void, before_instruction: *mut i32) -> usize {
    if !before_instruction.is_null() {
        // SAFETY: the caller hands a pointer to its own flag, which it reads back.
        unsafe { *before_instruction = 0 };
    }
    0
}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_SetGR(_context: *mut c_void, _index: i32, _value: usize) {}

#[unsafe(no_mangle)]
extern "C" fn _Unwind_SetIP(_context: *mut c_void, _value: usize) {}
