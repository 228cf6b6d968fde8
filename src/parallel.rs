//! The three ways planseal uses a second core inside one command: independent per-item work
//! split over the cores ([`map_in_chunks`]), one piece of pure computation done beside another
//! ([`beside`]), and freeing a large value off the critical path ([`drop_later`]).
//!
//! A writer's time on a 500-task plan is mostly its own CPU work between two waits for the disk;
//! the checks of one task never depend on another's, and the tree of a parsed 300 KB state takes
//! as long to free as a tenth of the whole command. Both are deterministic: the results come back
//! in the items' order whatever the number of threads, and nothing observable waits on a drop.

/// At most this many threads, whatever the core count: past it the start-up of each thread
/// costs more than its share of a plan's tasks saves.
const MAX_THREADS: usize = 4;

/// `f(state, index, item)` for every item, in the items' order. With at least `min_items` items
/// and more than one core, the items are worked in blocks of [`BLOCK`] that each thread takes in
/// turn — this one and up to [`MAX_THREADS`] − 1 scoped threads, each with its own `init()`
/// state (for what cannot be shared between threads, such as a folder's look-up cache) — so a
/// thread that starts late takes fewer blocks instead of being waited for; otherwise everything
/// runs here with one state. A thread that cannot be started leaves its share to the others.
///
/// Why blocks: on a virtual machine a new thread often starts a millisecond or two after it is
/// asked for (its idle core must be woken by the host). With one fixed half per thread, an
/// update's task pass then waited for the late half; measured on the benchmark machine right
/// after a `sync`, 11 of 25 runs started the second thread over 1.4 ms late.
pub(crate) fn map_in_chunks<T, S, R>(
    items: &[T],
    min_items: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize, &T) -> R + Sync,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let threads = thread_count(items.len(), min_items);
    if threads <= 1 {
        let mut state = init();
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| f(&mut state, i, item))
            .collect();
    }
    let blocks = items.len().div_ceil(BLOCK);
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Takes blocks until none is left; returns each block's results with the block's number.
    let work = || -> Vec<(usize, Vec<R>)> {
        let mut state = init();
        let mut done = Vec::new();
        loop {
            let block = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if block >= blocks {
                return done;
            }
            let start = block * BLOCK;
            let end = (start + BLOCK).min(items.len());
            let results = items[start..end]
                .iter()
                .enumerate()
                .map(|(i, item)| f(&mut state, start + i, item))
                .collect();
            done.push((block, results));
        }
    };
    let work = &work;
    let mut done = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    // the main thread's 8 MiB, so that deep records check alike on either
                    .stack_size(8 << 20)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        let mut done = work();
        for worker in workers {
            done.extend(
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        done
    });
    done.sort_unstable_by_key(|(block, _)| *block);
    done.into_iter().flat_map(|(_, results)| results).collect()
}

/// How many items a thread takes at a time in [`map_in_chunks`]: enough that taking one costs
/// nothing next to checking it, few enough that a late thread is not waited for long.
const BLOCK: usize = 16;

/// How many threads `len` items are worth: one below `min_items`, else one per core (capped).
fn thread_count(len: usize, min_items: usize) -> usize {
    if len < min_items.max(2) {
        return 1;
    }
    cores().min(MAX_THREADS).min(len)
}

/// The cores this process may use, asked once: the standard library reads the cgroup's CPU
/// quota files on every call.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// `here()` on this thread while `there()` runs on another, and both results. For pure work
/// only (hashing, parsing): everything that touches the file system stays on the calling thread,
/// in its order. With one core, or when no thread can be started, `there()` runs here after
/// `here()`.
pub(crate) fn beside<A, B: Send>(
    here: impl FnOnce() -> A,
    there: impl FnOnce() -> B + Send,
) -> (A, B) {
    if cores() < 2 {
        let a = here();
        return (a, there());
    }
    // The closure is taken out of the slot by whichever thread runs it, so that a thread that
    // cannot be started does not take it down with it.
    let slot = std::sync::Mutex::new(Some(there));
    let take = || {
        slot.lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .expect("the closure is taken once")
    };
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new().spawn_scoped(scope, || take()());
        let a = here();
        let b = match worker {
            Ok(worker) => worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => take()(),
        };
        (a, b)
    })
}

/// Frees `value` on another thread, so that the caller goes on (to its next write, or to exit)
/// without walking and freeing a large tree first. When no thread can be started it is freed
/// here. The process may end before the other thread is done: its memory goes back with it.
/// In a process that ends with its command ([`process_ends_with_its_command`]) the value is not
/// freed at all: the exit takes the whole address space back at once, and neither the thread
/// nor the walk is paid for.
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    if ENDS_WITH_ITS_COMMAND.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(value);
        return;
    }
    // A thread that cannot be started drops its closure, and the value with it, right here.
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

static ENDS_WITH_ITS_COMMAND: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Says that this process ends when its one command is done (the `planseal` binary; not a
/// long-running server such as `planseal mcp`), so that large values the library is done with
/// are left to the exit instead of being freed one allocation at a time.
pub fn process_ends_with_its_command() {
    ENDS_WITH_ITS_COMMAND.store(true, std::sync::atomic::Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_items_whatever_the_split() {
        let items: Vec<u32> = (0..1001).collect();
        for min in [0, 2, 500, 2000] {
            let out = map_in_chunks(
                &items,
                min,
                || 0u32,
                |seen, i, n| {
                    *seen += 1;
                    (i, *n * 2)
                },
            );
            let expected: Vec<(usize, u32)> = items.iter().map(|n| (*n as usize, n * 2)).collect();
            assert_eq!(out, expected, "min_items {min}");
        }
    }

    #[test]
    fn each_thread_starts_from_its_own_state() {
        let items = vec![(); 600];
        let counts = map_in_chunks(
            &items,
            1,
            || 0usize,
            |seen, _, _| {
                *seen += 1;
                *seen
            },
        );
        // Each thread that took a block counts from 1 and keeps counting over its blocks, so
        // the counts are the runs 1..=k of each thread: as many 1s as threads that worked, and
        // never more of a count than of the one below it.
        assert_eq!(counts[0], 1);
        let starts = counts.iter().filter(|c| **c == 1).count();
        assert!((1..=thread_count(600, 1)).contains(&starts), "{starts}");
        let mut seen = vec![0usize; 602];
        for c in &counts {
            seen[*c] += 1;
        }
        assert!(seen.windows(2).skip(1).all(|w| w[0] >= w[1]), "{seen:?}");
    }

    #[test]
    fn a_late_thread_takes_fewer_blocks_and_the_order_holds() {
        // The first item holds up the thread that takes it until the others have done 100
        // items (or ten seconds passed): they take the blocks it would have had.
        use std::sync::atomic::{AtomicUsize, Ordering};
        let items: Vec<usize> = (0..200).collect();
        let done = AtomicUsize::new(0);
        let out = map_in_chunks(
            &items,
            1,
            || (),
            |_, i, n| {
                if i == 0 {
                    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
                    while done.load(Ordering::SeqCst) < 100 && std::time::Instant::now() < until {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
                done.fetch_add(1, Ordering::SeqCst);
                (i, *n, std::thread::current().id())
            },
        );
        assert_eq!(
            out.iter().map(|(i, n, _)| (*i, *n)).collect::<Vec<_>>(),
            items.iter().map(|n| (*n, *n)).collect::<Vec<_>>()
        );
        if thread_count(200, 1) > 1 {
            let stalled = out[0].2;
            let by_stalled = out.iter().filter(|(_, _, t)| *t == stalled).count();
            assert!(
                by_stalled <= 100,
                "the held-up thread took {by_stalled} of 200"
            );
        }
    }

    #[test]
    fn few_items_stay_on_this_thread() {
        assert_eq!(thread_count(10, 200), 1);
        assert_eq!(thread_count(0, 0), 1);
        assert!(thread_count(500, 200) >= 1);
    }

    #[test]
    fn beside_gives_both_results_whichever_thread_ran_them() {
        let here = std::thread::current().id();
        let (a, (b, ran_on)) = beside(|| 6 * 7, || ("there", std::thread::current().id()));
        assert_eq!((a, b), (42, "there"));
        assert_eq!(ran_on == here, cores() < 2);
    }

    #[test]
    fn a_value_dropped_later_is_dropped() {
        let (tx, rx) = std::sync::mpsc::channel();
        struct Signal(std::sync::mpsc::Sender<()>);
        impl Drop for Signal {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        drop_later(Signal(tx));
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("the value is dropped");
    }
}
