fn main() {
    let engine = convstate::patterns::builtin();
    for t in std::env::args().skip(1) {
        let r = engine
            .classifier()
            .read(&t, convstate::conversation::Role::User);
        println!(
            "{t:?}\n  goal {:?}\n  more {:?} alt {}",
            r.goal, r.more, r.alternatives
        );
    }
}
