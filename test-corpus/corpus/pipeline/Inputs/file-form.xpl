// A pipeline file: one item per line, `add` for passes.
add test-never-change as first
fixed-point fp max=3 {
    add test-change-n{times=2}
    sequence inner {
        add test-refuse{reason="not now"}
    }
}
