//! docs/syscalls.md against the kernel's one syscall table
//! (kernel/src/linux/table.rs): every call the table handles has a row with
//! its number, and every row names a call the table handles. The kernel
//! binary cannot run host tests, so this reads the table's source.

use gometal_core::linux::sysno;
use std::collections::BTreeMap;

const TABLE: &str = include_str!("../../src/linux/table.rs");
const DOC: &str = include_str!("../../../docs/syscalls.md");

/// Handled before the table: it restores every register, a0 included.
const BEFORE_TABLE: &[&str] = &["rt_sigreturn"];

/// (lower-case name, number) of every `NAME => handler,` line of the table.
fn table_calls() -> Vec<(String, usize)> {
    TABLE
        .lines()
        .filter_map(|l| l.trim().split_once(" => "))
        .map(|(upper, _)| {
            let lower = upper.to_ascii_lowercase();
            let nr = sysno::number(&lower).unwrap_or_else(|| panic!("{upper} is not in sysno.rs"));
            (lower, nr)
        })
        .collect()
}

/// "129–131" → 129, 130, 131; "172, 173" → 172, 173.
fn numbers(cell: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in cell.split(',').map(str::trim) {
        if let Some((a, b)) = part.split_once('–') {
            let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
            out.extend(a..=b);
        } else {
            out.push(part.parse().unwrap_or_else(|_| panic!("bad number {part:?}")));
        }
    }
    out
}

/// name → number, from the rows of the doc's syscall table.
fn doc_calls() -> BTreeMap<String, usize> {
    let mut calls = BTreeMap::new();
    // Rows of tables headed `| syscall | nr |` (others, such as the
    // socket-option table, are not about calls).
    let mut in_calls = false;
    for line in DOC.lines() {
        if !line.starts_with('|') {
            in_calls = false;
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.get(1) == Some(&"syscall") && cells.get(2) == Some(&"nr") {
            in_calls = true;
            continue;
        }
        if !in_calls || cells.len() < 4 || cells[1].starts_with("---") {
            continue;
        }
        let names: Vec<&str> = cells[1].split(',').map(str::trim).collect();
        let nrs = numbers(cells[2]);
        assert_eq!(names.len(), nrs.len(), "row {line:?}: names and numbers differ in count");
        for (n, nr) in names.into_iter().zip(nrs) {
            assert!(calls.insert(n.to_string(), nr).is_none(), "{n} has two rows");
        }
    }
    calls
}

#[test]
fn every_handled_call_is_documented_with_its_number() {
    let doc = doc_calls();
    for (name, nr) in table_calls() {
        match doc.get(&name) {
            Some(&d) => assert_eq!(d, nr, "docs/syscalls.md gives {name} number {d}, the code {nr}"),
            None => panic!("{name} ({nr}) is handled but not in docs/syscalls.md"),
        }
    }
}

#[test]
fn every_documented_call_is_handled() {
    let handled: Vec<String> = table_calls().into_iter().map(|(n, _)| n).collect();
    for (name, nr) in doc_calls() {
        assert_eq!(sysno::number(&name), Some(nr), "docs/syscalls.md: {name} is not number {nr}");
        assert!(
            handled.contains(&name) || BEFORE_TABLE.contains(&name.as_str()),
            "docs/syscalls.md lists {name}, which the table in kernel/src/linux/table.rs does not handle"
        );
    }
}

#[test]
fn the_table_is_read() {
    // Guards the parser: an empty parse would pass the tests above.
    assert!(table_calls().len() > 80);
    assert!(doc_calls().len() > 80);
}
