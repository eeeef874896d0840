add dce
add const-fold
