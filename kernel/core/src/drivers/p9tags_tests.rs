//! Host tests of the in-flight table (p9tags.rs).

use super::*;

#[test]
fn tags_are_distinct_and_limited() {
    let mut t: InFlight<()> = InFlight::new(3, 8);
    assert_eq!((t.reserve(), t.reserve(), t.reserve()), (Some(0), Some(1), Some(2)));
    assert_eq!(t.reserve(), None, "a fourth request waits for a tag");
    assert_eq!(t.tags_in_use(), 3);
    t.release(1);
    assert_eq!(t.reserve(), Some(1), "a released tag is reused");
    t.release(0);
    t.release(1);
    t.release(2);
    assert_eq!(t.tags_in_use(), 0);
}

#[test]
fn the_limit_is_at_most_max_tags() {
    let mut t: InFlight<()> = InFlight::new(1000, 1);
    let n = core::iter::from_fn(|| t.reserve()).count();
    assert_eq!(n, MAX_TAGS);
}

#[test]
fn a_request_goes_sent_done_taken() {
    let mut t = InFlight::new(4, 8);
    let tag = t.reserve().unwrap();
    assert_eq!(t.insert(3, 5, "unreserved"), Err("unreserved"));
    assert!(t.insert(tag, 5, "bufs").is_ok());
    assert_eq!(t.insert(tag, 6, "again"), Err("again"), "a tag in flight is not sent twice");
    assert_eq!(t.insert(tag, 8, "x"), Err("x"), "token out of range");
    assert_eq!(t.take(tag), None, "still the device's");
    assert_eq!(t.sent(5).copied(), Some("bufs"));
    assert!(t.complete(5, 42));
    assert!(!t.complete(5, 42), "completed once");
    assert_eq!(t.sent(5), None);
    assert_eq!(t.take(tag), Some(("bufs", 42)));
    assert_eq!(t.take(tag), None);
    t.release(tag);
}

#[test]
fn a_token_is_reused_while_the_last_reply_waits_for_its_sender() {
    let mut t = InFlight::new(4, 8);
    let (a, b) = (t.reserve().unwrap(), t.reserve().unwrap());
    t.insert(a, 0, "a").unwrap();
    assert!(t.complete(0, 1));
    // The queue hands token 0 out again before a's sender looked.
    t.insert(b, 0, "b").unwrap();
    assert_eq!(t.take(a), Some(("a", 1)));
    assert_eq!(t.take(b), None);
    assert!(t.complete(0, 2));
    assert_eq!(t.take(b), Some(("b", 2)));
}

#[test]
fn completions_out_of_order_reach_their_own_senders() {
    let mut t = InFlight::new(4, 4);
    let tags: Vec<u16> = (0..4).map(|_| t.reserve().unwrap()).collect();
    for (tok, &tag) in tags.iter().enumerate() {
        t.insert(tag, tok as u16, tag * 10).unwrap();
    }
    assert!(t.complete(2, 7));
    assert!(t.complete(0, 9));
    assert_eq!(t.take(tags[1]), None);
    assert_eq!(t.take(tags[2]), Some((20, 7)));
    assert_eq!(t.take(tags[0]), Some((0, 9)));
}
