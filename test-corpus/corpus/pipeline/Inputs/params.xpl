param extra = false
add dce
if extra {
    add const-fold
}
