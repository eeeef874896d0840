sequence wrapped {
    use small
}
use small required
verify
