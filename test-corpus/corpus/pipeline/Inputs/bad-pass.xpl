// A pipeline with a typo on line 4.
fixed-point cleanup max=4 {
    add dce
    add const-fld
}
