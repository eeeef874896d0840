use cycle-b
