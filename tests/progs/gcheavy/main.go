// Test program gcheavy: many producer goroutines build maps of byte slices,
// append-grown slices and strings, pass them through channels to consumer
// goroutines that verify their checksums and drop them, while main forces
// runtime.GC a few times. The heap churns through a few hundred MiB in total
// but stays bounded (well under 256 MiB live), so the collector runs many
// cycles with its mark workers, write barriers and sweepers on every hart,
// and every object is checked after crossing goroutines (and harts).
//
//	gcheavy [producers [items-per-producer]]   (defaults 32 and 60)
package main

import (
	"fmt"
	"hash/crc32"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL gcheavy: "+format+"\n", a...)
	os.Exit(1)
}

const consumers = 8

// item is one unit of garbage: a map of slices, an append-grown slice and a
// string, each with the checksum its producer computed.
type item struct {
	producer, seq int
	m             map[int][]byte
	mSum          uint32
	grown         []uint64
	grownSum      uint64
	s             string
	sSum          uint32
}

// fill is deterministic in (p, seq, k) so consumers can recompute it.
func fill(p, seq, k, n int) []byte {
	b := make([]byte, n)
	x := uint32(p*7919 + seq*104729 + k*31 + 1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func mapSum(m map[int][]byte) uint32 {
	// Order-independent: combine per-key CRCs with the key.
	var s uint32
	for k, v := range m {
		s += crc32.ChecksumIEEE(v) ^ uint32(k*2654435761)
	}
	return s
}

func produce(p, seq int) *item {
	it := &item{producer: p, seq: seq, m: make(map[int][]byte)}
	keys := 16 + (p+seq)%16
	for k := 0; k < keys; k++ {
		it.m[k] = fill(p, seq, k, 256+(k*37+seq)%2048)
	}
	it.mSum = mapSum(it.m)
	// Grow a slice by append from nil: many reallocations, each old backing
	// array garbage at once.
	n := 1000 + (p*13+seq*7)%3000
	for i := 0; i < n; i++ {
		v := uint64(p)<<40 | uint64(seq)<<20 | uint64(i)
		it.grown = append(it.grown, v)
		it.grownSum += v * uint64(i+1)
	}
	var sb strings.Builder
	for i := 0; i < 40+seq%20; i++ {
		sb.WriteString(strconv.Itoa(p*1000000 + seq*1000 + i))
		sb.WriteByte(',')
	}
	it.s = sb.String()
	it.sSum = crc32.ChecksumIEEE([]byte(it.s))
	return it
}

// check recomputes everything from scratch and from the item's own data.
func check(it *item) error {
	keys := 16 + (it.producer+it.seq)%16
	if len(it.m) != keys {
		return fmt.Errorf("item %d/%d: map has %d keys, want %d", it.producer, it.seq, len(it.m), keys)
	}
	for k, v := range it.m {
		want := fill(it.producer, it.seq, k, 256+(k*37+it.seq)%2048)
		if string(v) != string(want) {
			return fmt.Errorf("item %d/%d: map[%d] corrupted (%d bytes)", it.producer, it.seq, k, len(v))
		}
	}
	if s := mapSum(it.m); s != it.mSum {
		return fmt.Errorf("item %d/%d: map checksum %#x, want %#x", it.producer, it.seq, s, it.mSum)
	}
	n := 1000 + (it.producer*13+it.seq*7)%3000
	if len(it.grown) != n {
		return fmt.Errorf("item %d/%d: grown slice len %d, want %d", it.producer, it.seq, len(it.grown), n)
	}
	var gs uint64
	for i, v := range it.grown {
		if want := uint64(it.producer)<<40 | uint64(it.seq)<<20 | uint64(i); v != want {
			return fmt.Errorf("item %d/%d: grown[%d] = %#x, want %#x", it.producer, it.seq, i, v, want)
		}
		gs += v * uint64(i+1)
	}
	if gs != it.grownSum {
		return fmt.Errorf("item %d/%d: grown checksum mismatch", it.producer, it.seq)
	}
	if crc32.ChecksumIEEE([]byte(it.s)) != it.sSum {
		return fmt.Errorf("item %d/%d: string checksum mismatch", it.producer, it.seq)
	}
	first := strconv.Itoa(it.producer*1000000+it.seq*1000) + ","
	if !strings.HasPrefix(it.s, first) {
		return fmt.Errorf("item %d/%d: string starts %.20q, want %q", it.producer, it.seq, it.s, first)
	}
	return nil
}

func main() {
	producers, perProducer := counts()
	t0 := time.Now()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	ch := make(chan *item, 16)
	var pwg sync.WaitGroup
	for p := 0; p < producers; p++ {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			for seq := 0; seq < perProducer; seq++ {
				ch <- produce(p, seq)
			}
		}()
	}
	t := newTally(producers)
	cwg := t.consume(ch)
	// Forced collections while the producers and consumers run.
	stopGC := forceGCs()
	pwg.Wait()
	close(ch)
	cwg.Wait()
	forced := stopGC()
	runtime.GC()

	total := t.verify(perProducer)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	gcs := after.NumGC - before.NumGC
	fmt.Printf("gcheavy: %d items (%d MiB of payload) checked by %d consumers; %d GCs (%d forced), heap %d MiB at the end, total alloc %d MiB, %v\n",
		total, t.bytesSeen.Load()>>20, consumers, gcs, forced+1, after.HeapAlloc>>20,
		(after.TotalAlloc-before.TotalAlloc)>>20, time.Since(t0).Round(time.Millisecond))
	if gcs < 3 {
		fail("only %d GC cycles ran, want at least 3", gcs)
	}
	if after.HeapAlloc > 128<<20 {
		fail("heap still %d MiB after the final GC", after.HeapAlloc>>20)
	}
	fmt.Println("PASS gcheavy")
}

// counts are the producers and the items each makes, from the arguments.
func counts() (producers, perProducer int) {
	producers, perProducer = 32, 60
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil || v < 1 {
			fail("bad producer count %q", os.Args[1])
		}
		producers = v
	}
	if len(os.Args) > 2 {
		v, err := strconv.Atoi(os.Args[2])
		if err != nil || v < 1 {
			fail("bad item count %q", os.Args[2])
		}
		perProducer = v
	}
	return producers, perProducer
}

// tally is what the consumers saw: items and bytes, and per producer how
// many items and the sum of their sequence numbers; the first bad item.
type tally struct {
	consumed  atomic.Int64
	bytesSeen atomic.Int64
	errOnce   sync.Once
	firstErr  error
	perProd   []atomic.Int64
	seqSum    []atomic.Int64
}

func newTally(producers int) *tally {
	return &tally{perProd: make([]atomic.Int64, producers), seqSum: make([]atomic.Int64, producers)}
}

// consume starts the consumers: each checks the items it takes from ch
// and drops them. The WaitGroup is done when ch is closed and drained.
func (t *tally) consume(ch <-chan *item) *sync.WaitGroup {
	var cwg sync.WaitGroup
	for c := 0; c < consumers; c++ {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			for it := range ch {
				if err := check(it); err != nil {
					t.errOnce.Do(func() { t.firstErr = err })
					continue
				}
				if it.producer < 0 || it.producer >= len(t.perProd) {
					t.errOnce.Do(func() { t.firstErr = fmt.Errorf("bad producer %d", it.producer) })
					continue
				}
				var b int64
				for _, v := range it.m {
					b += int64(len(v))
				}
				t.bytesSeen.Add(b + int64(8*len(it.grown)+len(it.s)))
				t.perProd[it.producer].Add(1)
				t.seqSum[it.producer].Add(int64(it.seq))
				t.consumed.Add(1)
			}
		}()
	}
	return &cwg
}

// verify fails the program unless every producer's perProducer items were
// consumed, each once, and none was bad; it returns the items consumed.
func (t *tally) verify(perProducer int) int64 {
	if t.firstErr != nil {
		fail("%v", t.firstErr)
	}
	total := int64(len(t.perProd) * perProducer)
	if got := t.consumed.Load(); got != total {
		fail("consumed %d items, want %d", got, total)
	}
	wantSeq := int64(perProducer * (perProducer - 1) / 2)
	for p := range t.perProd {
		if n := t.perProd[p].Load(); n != int64(perProducer) {
			fail("producer %d: %d items consumed, want %d", p, n, perProducer)
		}
		if s := t.seqSum[p].Load(); s != wantSeq {
			fail("producer %d: sequence sum %d, want %d", p, s, wantSeq)
		}
	}
	return total
}

// forceGCs runs runtime.GC every 20 ms until the returned stop is called,
// which returns how many it ran.
func forceGCs() (stop func() int) {
	gcDone := make(chan int)
	stopGC := make(chan struct{})
	go func() {
		n := 0
		defer func() { gcDone <- n }()
		for {
			select {
			case <-stopGC:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.GC()
				n++
			}
		}
	}()
	return func() int {
		close(stopGC)
		return <-gcDone
	}
}
