//! Each format against text a Linux 6.x kernel printed for the same
//! figures (taken from a real /proc, the numbers fed back in).

use super::memory::*;
use super::net::*;
use super::system::*;
use super::task::*;
use super::*;

#[test]
fn stat_line_matches_linux() {
    let t = TaskStat {
        pid: 19091,
        comm: "cat",
        state: 'R',
        ppid: 19088,
        pgrp: 19088,
        session: 7171,
        flags: 4194304,
        minflt: 99,
        num_threads: 1,
        starttime: 27985,
        vsize: 3133440,
        rss: 388,
        rsslim: u64::MAX,
        startcode: 94100721524736,
        endcode: 94100721544617,
        startstack: 140734991169392,
        exit_signal: 17,
        start_data: 94100721560624,
        end_data: 94100721562240,
        start_brk: 94101729701888,
        arg_start: 140734991174340,
        arg_end: 140734991174360,
        env_start: 140734991174360,
        env_end: 140734991175659,
        ..TaskStat::default()
    };
    assert_eq!(
        stat(&t),
        "19091 (cat) R 19088 19088 7171 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 27985 3133440 388 18446744073709551615 94100721524736 94100721544617 140734991169392 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 94100721560624 94100721562240 94101729701888 140734991174340 140734991174360 140734991174360 140734991175659 0\n"
    );
    // 52 fields, as proc(5) numbers them.
    assert_eq!(stat(&t).split_whitespace().count(), 52);
}

#[test]
fn comm_is_the_base_name_cut_to_15_bytes() {
    assert_eq!(comm(b"/init"), "init");
    assert_eq!(comm(b"/usr/bin/a-very-long-program-name"), "a-very-long-pro");
}

#[test]
fn status_lines() {
    let cpus = [0, 1];
    let s = TaskStatus {
        name: "cat",
        state: 'R',
        tgid: 19090,
        pid: 19090,
        ppid: 19088,
        fdsize: 256,
        vm: VmFigures { peak: 3060, size: 3060, hwm: 1756, rss: 1756, rss_anon: 116, rss_file: 1640, data: 360, stk: 132, exe: 20, lib: 1528, pte: 44, ..VmFigures::default() },
        threads: 1,
        sigq: (3, 96365),
        cpus: &cpus,
        ..TaskStatus::default()
    };
    let text = status(&s);
    for line in [
        "Name:\tcat\n",
        "Umask:\t0022\n",
        "State:\tR (running)\n",
        "Tgid:\t19090\n",
        "PPid:\t19088\n",
        "Uid:\t0\t0\t0\t0\n",
        "FDSize:\t256\n",
        "Groups:\t \n",
        "VmPeak:\t    3060 kB\n",
        "VmRSS:\t    1756 kB\n",
        "RssAnon:\t     116 kB\n",
        "VmPTE:\t      44 kB\n",
        "Threads:\t1\n",
        "SigQ:\t3/96365\n",
        "SigPnd:\t0000000000000000\n",
        "Cpus_allowed:\t3\n",
        "Cpus_allowed_list:\t0-1\n",
        "nonvoluntary_ctxt_switches:\t0\n",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    // Every line is "Key:\tvalue".
    assert!(text.lines().all(|l| l.split_once(":\t").is_some()), "{text}");
}

#[test]
fn cpu_sets() {
    assert_eq!(cpu_list([0, 1, 2, 3]), "0-3");
    assert_eq!(cpu_list([0, 2, 3, 5]), "0,2-3,5");
    assert_eq!(cpu_list([0]), "0");
    assert_eq!(cpu_mask([0, 1, 2, 3]), "f");
    assert_eq!(cpu_mask([0, 33]), "2,00000001");
}

#[test]
fn statm_and_io() {
    assert_eq!(statm(&Statm { size: 765, resident: 439, shared: 411, text: 5, data: 123 }), "765 439 411 5 0 123 0\n");
    assert_eq!(
        io(&IoCounts { rchar: 6976, syscr: 10, ..IoCounts::default() }),
        "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 0\nwrite_bytes: 0\ncancelled_write_bytes: 0\n"
    );
}

#[test]
fn limits_match_linux() {
    let u = UNLIMITED;
    let values = [
        (u, u),
        (u, u),
        (u, u),
        (8388608, u),
        (0, u),
        (u, u),
        (96365, 96365),
        (20000, 20000),
        (8388608, 8388608),
        (u, u),
        (u, u),
        (96365, 96365),
        (819200, 819200),
        (0, 0),
        (0, 0),
        (u, u),
    ];
    let want = "\
Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max file size             unlimited            unlimited            bytes     
Max data size             unlimited            unlimited            bytes     
Max stack size            8388608              unlimited            bytes     
Max core file size        0                    unlimited            bytes     
Max resident set          unlimited            unlimited            bytes     
Max processes             96365                96365                processes 
Max open files            20000                20000                files     
Max locked memory         8388608              8388608              bytes     
Max address space         unlimited            unlimited            bytes     
Max file locks            unlimited            unlimited            locks     
Max pending signals       96365                96365                signals   
Max msgqueue size         819200               819200               bytes     
Max nice priority         0                    0                    
Max realtime priority     0                    0                    
Max realtime timeout      unlimited            unlimited            us        
";
    assert_eq!(limits(&values), want);
}

#[test]
fn fdinfo_matches_linux() {
    assert_eq!(fdinfo(0, 0o100000, 24, 3), "pos:\t0\nflags:\t0100000\nmnt_id:\t24\nino:\t3\n");
}

#[test]
fn maps_lines() {
    let mut o = alloc::string::String::new();
    let a = MapArea { start: 0x55ea6a08f000, end: 0x55ea6a091000, read: true, offset: 0, dev: (0xfe, 0), ino: 247278, name: "/usr/bin/head", ..MapArea::default() };
    map_line(&mut o, &a);
    assert_eq!(o, "55ea6a08f000-55ea6a091000 r--p 00000000 fe:00 247278                     /usr/bin/head\n");
    o.clear();
    let anon = MapArea { start: 0x7f0000000000, end: 0x7f0000021000, read: true, write: true, ..MapArea::default() };
    map_line(&mut o, &anon);
    assert_eq!(o, "7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n");
    o.clear();
    map_line(&mut o, &MapArea { start: 0x10000, end: 0x11000, read: true, exec: true, ..MapArea::default() });
    assert_eq!(o, "00010000-00011000 r-xp 00000000 00:00 0 \n");
}

#[test]
fn smaps_rollup_matches_linux() {
    let r = Rollup { start: 0x55c4d8570000, end: 0x7ffdff55c000, rss: 1752, anon: 112, file: 1640, ..Rollup::default() };
    let text = smaps_rollup(&r);
    assert!(text.starts_with("55c4d8570000-7ffdff55c000 ---p 00000000 00:00 0                          [rollup]\nRss:                1752 kB\nPss:                1752 kB\n"), "{text}");
    assert!(text.contains("\nAnonymous:           112 kB\n"), "{text}");
}

#[test]
fn meminfo_matches_linux() {
    let text = meminfo(&MemInfo { total: 24684084, free: 20616328, available: 23307568, ..MemInfo::default() });
    assert!(text.starts_with("MemTotal:       24684084 kB\nMemFree:        20616328 kB\nMemAvailable:   23307568 kB\nBuffers:               0 kB\n"), "{text}");
    assert!(text.contains("\nHugePages_Total:       0\n"), "{text}");
    assert!(text.ends_with("Hugepagesize:       2048 kB\nHugetlb:               0 kB\n"), "{text}");
}

#[test]
fn kernel_stat_matches_linux() {
    let t0 = CpuTimes { user: 20157, system: 4154, idle: 10547, iowait: 37, softirq: 10, steal: 43, ..CpuTimes::default() };
    let t1 = CpuTimes { user: 21597, system: 5232, idle: 7544, iowait: 445, softirq: 89, steal: 46, ..CpuTimes::default() };
    let k = KernelStat { cpus: alloc::vec![(0, t0), (1, t1)], interrupts: 669613, context_switches: 1226932, boot_time: 1795823666, processes: 21494, running: 16, blocked: 0 };
    let text = kernel_stat(&k);
    assert!(text.starts_with("cpu  41754 0 9386 18091 482 0 99 89 0 0\ncpu0 20157 0 4154 10547 37 0 10 43 0 0\ncpu1 21597 0 5232 7544 445 0 89 46 0 0\nintr 669613\nctxt 1226932\nbtime 1795823666\nprocesses 21494\nprocs_running 16\nprocs_blocked 0\nsoftirq "), "{text}");
}

#[test]
fn uptime_and_loadavg() {
    assert_eq!(uptime(351_420_000_000, 180_929_999_999), "351.42 180.92\n");
    assert_eq!(loadavg([1227, 551, 214], 15, 190, 21494), "12.27 5.51 2.14 15/190 21494\n");
}

#[test]
fn mounts_match_linux() {
    let m = [Mount { id: 22, parent: 27, dev: (0, 21), source: "proc", point: "/proc", fstype: "proc", options: "rw,relatime", super_options: "rw" }];
    assert_eq!(mounts(&m), "proc /proc proc rw,relatime 0 0\n");
    assert_eq!(mountinfo(&m), "22 27 0:21 / /proc rw,relatime - proc proc rw\n");
}

#[test]
fn net_dev_matches_linux() {
    let lo = DevCounters { name: "lo", rx_bytes: 204542210, rx_packets: 23998, tx_bytes: 204542210, tx_packets: 23998, ..DevCounters::default() };
    let text = dev(&[lo]);
    assert!(text.ends_with("\n    lo: 204542210   23998    0    0    0     0          0         0 204542210   23998    0    0    0     0       0          0\n"), "{text}");
}

#[test]
fn tcp_and_udp_lines_match_linux() {
    let listener = InetSocket { local_port: 0x07e8, state: tcp_state::LISTEN, inode: 1592, ..InetSocket::default() };
    let text = tcp(&[listener], false);
    let lines: alloc::vec::Vec<&str> = text.split('\n').collect();
    assert_eq!(lines[0].len(), 149);
    assert!(lines[0].starts_with("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode "));
    assert!(lines[1].starts_with("   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1592 1 "), "{}", lines[1]);
    assert_eq!(lines[1].len(), 149);
    let mut local = [0u8; 16];
    local[..4].copy_from_slice(&[127, 0, 0, 1]);
    let u = udp(&[InetSocket { local, local_port: 53, state: tcp_state::CLOSE, ..InetSocket::default() }], false);
    assert!(u.split('\n').nth(1).unwrap().starts_with("    0: 0100007F:0035 00000000:0000 07 "), "{u}");
    assert_eq!(u.split('\n').next().unwrap().len(), 127);
    let mut v6 = [0u8; 16];
    v6[15] = 1; // ::1
    let t6 = tcp(&[InetSocket { local: v6, local_port: 80, state: tcp_state::LISTEN, ..InetSocket::default() }], true);
    assert!(t6.contains("\n   0: 00000000000000000000000001000000:0050 00000000000000000000000000000000:0000 0A "), "{t6}");
}

#[test]
fn route_matches_linux() {
    let r = [
        Route { iface: "eth0", destination: [0; 4], gateway: [192, 0, 2, 1], mask: [0; 4], metric: 0 },
        Route { iface: "eth0", destination: [192, 0, 2, 0], gateway: [0; 4], mask: [255, 255, 255, 0], metric: 0 },
    ];
    let text = route(&r);
    let lines: alloc::vec::Vec<&str> = text.split('\n').collect();
    assert_eq!(lines[0].len(), 127);
    assert_eq!(lines[1].trim_end(), "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0");
    assert_eq!(lines[2].trim_end(), "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0");
    assert_eq!(lines[1].len(), 127);
}

#[test]
fn snmp_pairs_lines() {
    let text = snmp(&[("Ip", &[("Forwarding", 2), ("DefaultTTL", 64)]), ("Tcp", &[("MaxConn", -1)])]);
    assert_eq!(text, "Ip: Forwarding DefaultTTL\nIp: 2 64\nTcp: MaxConn\nTcp: -1\n");
}

#[test]
fn if_inet6_matches_linux() {
    let mut lo = [0u8; 16];
    lo[15] = 1;
    let text = if_inet6(&[Inet6Addr { address: lo, index: 1, prefix: 128, scope: 0x10, flags: 0x80, name: "lo" }]);
    assert_eq!(text, "00000000000000000000000000000001 01 80 10 80       lo\n");
}

#[test]
fn sysfs_cpu_masks() {
    use super::cpu_mask_padded;
    assert_eq!(cpu_mask_padded([0, 1, 2, 3], 4), "f");
    assert_eq!(cpu_mask_padded([0], 8), "01");
    assert_eq!(cpu_mask_padded([2], 4), "4");
    assert_eq!(cpu_mask_padded([0], 40), "00,00000001");
    assert_eq!(cpu_mask_padded([33], 64), "00000002,00000000");
}
