add dce
use cycle-a
