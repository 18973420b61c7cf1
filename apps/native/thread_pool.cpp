// The native loops' threads: started once and kept, so that a timed call pays a wake-up (a few
// microseconds) and not the start of a thread per core (about 4 ms for 16 threads on the GPU
// machine's 16-core VM, longer than the whole reduction of 64 MiB there). Between calls the
// workers spin briefly (the timed repetitions follow each other closely), then sleep on the
// generation counter (a futex: no CPU used while Duet runs a device).
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include <unistd.h>

#include "native.hpp"

namespace duet::apps::native {

namespace {

// How long an idle worker spins before it sleeps.
constexpr auto spin_for = std::chrono::microseconds(300);

class Pool {
  public:
    explicit Pool(unsigned workers) {
        threads_.reserve(workers);
        for (unsigned w = 0; w < workers; ++w)
            threads_.emplace_back([this, w] { work(w + 1); });
    }
    ~Pool() {
        stop_.store(true);
        generation_.fetch_add(1);
        generation_.notify_all();
        for (auto& t : threads_)
            t.join();
    }
    unsigned size() const { return unsigned(threads_.size()) + 1; }

    // body(t) for t in [0, threads) at once, threads <= size(); t = 0 on the caller's thread.
    void run(unsigned threads, const std::function<void(unsigned)>& body) {
        body_ = &body;
        threads_wanted_ = threads;
        errors_.assign(threads, nullptr);
        pending_.store(unsigned(threads_.size()));
        generation_.fetch_add(1);
        generation_.notify_all();
        try {
            body(0);
        } catch (...) {
            errors_[0] = std::current_exception();
        }
        wait_until(pending_, [](unsigned left) { return left == 0; });
        for (auto& e : errors_)
            if (e)
                std::rethrow_exception(e);
    }

  private:
    // Returns once done(word's value); spins for spin_for, then sleeps until the word changes.
    template <class Done> static void wait_until(std::atomic<unsigned>& word, Done done) {
        const auto until = std::chrono::steady_clock::now() + spin_for;
        for (int i = 1;; ++i) {
            const unsigned now = word.load();
            if (done(now))
                return;
            if (i % 256 == 0 && std::chrono::steady_clock::now() > until)
                word.wait(now); // until it is no longer `now` (a notify or a spurious wake)
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
    }

    void work(unsigned t) {
        unsigned seen = 0;
        for (;;) {
            wait_until(generation_, [seen](unsigned g) { return g != seen; });
            seen = generation_.load();
            if (stop_.load())
                return;
            if (t < threads_wanted_) {
                try {
                    (*body_)(t);
                } catch (...) {
                    errors_[t] = std::current_exception();
                }
            }
            if (pending_.fetch_sub(1) == 1)
                pending_.notify_one();
        }
    }

    std::vector<std::thread> threads_;
    std::atomic<unsigned> generation_{0}, pending_{0};
    std::atomic<bool> stop_{false};
    const std::function<void(unsigned)>* body_ = nullptr;
    unsigned threads_wanted_ = 0;
    std::vector<std::exception_ptr> errors_;
};

void spawn(unsigned threads, const std::function<void(unsigned)>& body) {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(body, t);
    body(0);
    for (auto& t : pool)
        t.join();
}

} // namespace

void on_threads(unsigned threads, const std::function<void(unsigned)>& body) {
    if (threads <= 1) {
        body(0);
        return;
    }
    static std::atomic_flag busy;
    static const pid_t owner = getpid();
    // A nested or concurrent call, a call in a forked child (the workers stayed in the parent)
    // or more threads than the CPU has: threads of its own.
    if (threads > host_cpu().threads || getpid() != owner || busy.test_and_set()) {
        spawn(threads, body);
        return;
    }
    struct Release {
        ~Release() { busy.clear(); }
    } release;
    static Pool pool(host_cpu().threads - 1);
    pool.run(threads, body);
}

} // namespace duet::apps::native
