// A pipeline file exercising every item kind.
add test-never-change as first required
fixed-point fp max=3 allow-nonconvergence {
    add test-change-n{times=2} verify=deferred   # a shell-style comment
    sequence inner abort-on-refusal {
        add test-refuse{reason="not now"}
    }
}
if !has-autodiff-scope {
    add test-never-change
}
verify{require-no-phi}
