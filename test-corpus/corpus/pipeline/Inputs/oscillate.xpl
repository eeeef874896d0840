// Two test passes that undo each other: never converges.
fixed-point osc max=4 {
    add test-toggle-a
    add test-toggle-b
}
