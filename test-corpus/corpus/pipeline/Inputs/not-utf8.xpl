pipeline latin1 {
    # café
    dce
}
