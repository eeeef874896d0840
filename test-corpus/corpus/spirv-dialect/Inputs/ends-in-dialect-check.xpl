// A copied pipeline ending in the backend's dialect check (as spirv-final does).
add const-fold
check spirv-dialect
