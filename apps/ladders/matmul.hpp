#pragma once
// What matmul's host code (matmul.cpp) and its step records (matmul_steps.cpp) share.
#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "app.hpp"
#include "matmul_reference.hpp"
#include "run.hpp"
#include "shape.hpp"

namespace duet::apps {

// matmul's ladder, in order: one record per step (step.hpp).
const std::vector<Step>& matmul_steps();
// "" when the device runs the tf32 step (NVIDIA tensor cores with TF32: the extension
// nv.mma_sync), else why it is skipped ("is skipped on X: ...").
std::string tf32_unsupported(const DeviceInfo& info);
// The tf32 step's launch shapes (matmul_steps.cpp), which tc3's follow (matmul_tc3.cpp).
std::vector<Shape> tf32_shapes(const RunConfig& cfg, const DeviceInfo& info);
// best's defines beyond its shape's tile macros for an N x K B, those the user has
// not set: BEST_UNALIGNED where rows are not 16-byte aligned (1: A's, K not a multiple of 4; 2:
// B's, N not; 3: both). The device profile's (NVIDIA's OpenCL on Hopper: warp tiles and 16-deep
// tiles, as through CUDA) come with every step's (add_step_defines).
Defines best_defines(const RunConfig& cfg, std::size_t N, std::size_t K);

// How best covers C (matmul_best_plan.cpp). Where rows are not 16-byte aligned, on copies of
// the operands with rows of whole 16 bytes (Np, Kp: N and K rounded up to 4, zeros beyond): with
// copy_a A as M x Kp, and then B as Kp x Np; with copy_b alone B as K x Np. C is written in place.
// Then its bm x bn blocks over all of C in `splits` slices of K, or, with edge_rows or edge_cols,
// over C's whole blocks in M or N only, matmul_best_edge taking the last M % bm rows or N % bn
// columns. With `stream`, matmul_best_stream takes best's blocks instead, spread evenly over
// `groups` groups (stream-K, kernels_cl/matmul_best_stream.cl). --define BEST_SPLITK=S,
// BEST_EDGES=0|1, BEST_STREAM=0|1, BEST_GROUPS=G, BEST_STREAM_SUM=0|1 and BEST_ALIGN=0|1|2 (none,
// A and B, B only) choose (host macros, not the kernel's: best_host_define); a usage Error for a
// bad value or for a split with edges or stream-K. BEST_CLAMP is the kernel's: the user's value
// stands.
struct BestPlan {
    std::size_t n = 0, k = 0; // the N and K best's kernels see: Np with copy_b, Kp with copy_a
    std::size_t splits = 1;
    bool stream = false;     // matmul_best_stream over best's blocks
    std::size_t groups = 0;  // its groups (at most the blocks): one per compute unit by default
    bool stream_sum = false; // its pieces added by matmul_best_stream_sum, a launch of its own
    bool edge_rows = false, edge_cols = false;
    bool copy_a = false, copy_b = false; // copy_a: B is copied too
    bool clamp = false;    // B's rows aligned, blocks at C's edges: best built with BEST_CLAMP
    bool rows_out = false; // C's rows unaligned, best in waves: built with BEST_ROWS_OUT
};
BestPlan best_plan(const RunConfig& cfg, const DeviceInfo& info, std::size_t M, std::size_t N,
                   std::size_t K, std::size_t bm, std::size_t bn);
// What a plan's matmul_best_stream build sets over best's own defines, where it ran faster: the
// device profile's defines over clamped blocks, or over blocks all inside C (`all_inside`)
// unclamped (apps/profiles/device_profiles.json). Nothing without a stream (or where a define is
// the user's: the launch).
Defines best_stream_defines(const BestPlan& plan, const DeviceInfo& info, bool all_inside);
// matmul_best_stream's rounds of whole blocks of C, `groups` a round, before the groups share the
// rest: all but the last round and a half (kernels_cl/matmul_best_stream.cl).
std::size_t best_stream_rounds(std::size_t blocks, std::size_t groups);
// x / d as matmul_best_stream divides, by a multiply and a shift: {m, l} with x / d ==
// (umulhi(x, m) + x) >> l for 0 <= x < 2^31 (m's bits as an int, the kernels' argument); d >= 1.
std::pair<int, int> best_divisor(std::size_t d);
// Whether best's blocks over C's rows [0, Mi) and columns [0, Ni) (bm x bn, B's rows of Np
// floats) all lie inside C and K is whole tiles bk deep (Kp of them), as BEST_ALL_INSIDE asks.
bool best_all_inside(std::size_t Mi, std::size_t Ni, std::size_t Np, std::size_t Kp, std::size_t bm,
                     std::size_t bn, std::size_t bk);
// The depth of best's tiles (BEST_BK) in a build with `defines`: theirs, else the kernel's
// default, 16 where `deep` (the device profile's tile_depth: kernels_cu/matmul_best.cuh) and 8
// otherwise (kernels_cl/matmul_best.clh).
std::size_t best_tile_depth(const Defines& defines, bool deep);
// Whether `name` is one of best_plan's defines (the host's, never passed to a kernel).
bool best_host_define(const std::string& name);
// When a launch of rows x cols blocks in waves ends, in block times, on `cu` compute units that
// each take the next block in launch order (the columns fastest) when free, where the blocks of
// the last row (`last_row`) and of the last column (`last_col`) take 1 + `slow` and the others 1.
double best_waves_slow_edges(std::size_t rows, std::size_t cols, bool last_row, bool last_col,
                             std::size_t cu, double slow);
// The rows (or columns) of C that best's blocks of b cover, of n: all, or only its whole blocks
// where the edge's rest goes to matmul_best_edge (`edge`).
std::size_t best_covered(std::size_t n, std::size_t b, bool edge);
// matmul_best_edge's work-groups for C's rows [Mi, M) and columns [Ni, N) (its 32x32 tiles).
std::size_t best_edge_tiles(std::size_t M, std::size_t N, std::size_t Mi, std::size_t Ni);

// best's launches for one M x N x K problem on one queue, as `plan` says (matmul_best_launch.cpp):
// the constructor loads the kernels and allocates the buffers the plan needs beyond best's own
// (passing what it does to `note`); each call enqueues one C = A * B and returns its first and
// last events.
class BestLaunch {
  public:
    BestLaunch(Device& dev, Queue& q, const RunConfig& cfg, const BuildOptions& opts,
               Kernel& kernel, const Shape& g, const BestPlan& plan, std::size_t M, std::size_t N,
               std::size_t K, const std::function<void(std::string)>& note);
    std::pair<Event, Event> operator()(const Buffer& a, const Buffer& b, Buffer& c);

  private:
    using Note = std::function<void(std::string)>;
    // The constructor's parts: matmul_best_edge over C's thin edges, matmul_best_stream and its
    // schedule, the aligned copies, the split of K (each where the plan asks for it).
    void edges(Device& dev, const RunConfig& cfg, const BuildOptions& opts, const BestPlan& plan,
               const Note& note);
    void stream(Device& dev, const RunConfig& cfg, const BuildOptions& opts, const Shape& g,
                const BestPlan& plan, const Note& note);
    void copies(Device& dev, const BuildOptions& opts, const BestPlan& plan, const Note& note);
    void split(Device& dev, const BuildOptions& opts, const Note& note);
    Event copy(const Buffer& src, Buffer& dst, std::size_t rows, std::size_t cols,
               std::size_t src_rows, std::size_t src_cols);
    Queue& q_;
    Kernel& kernel_;
    std::array<std::size_t, 2> local_;
    std::size_t M_, N_, K_, splits_, Np_ = 0, Kp_ = 0, rows_ = 0, cols_ = 0, Mi_ = 0, Ni_ = 0;
    std::size_t blocks_m_ = 0, blocks_n_ = 0; // best's blocks over [0, Mi_) x [0, Ni_)
    std::size_t groups_ = 0; // matmul_best_stream's groups (0: best's kernel in waves)
    struct {                 // its schedule, as the kernel takes it (matmul_best_launch.cpp)
        int rounds, per, extra, kt, kt_m, kt_l, tn_m, tn_l;
    } schedule_{};
    std::unique_ptr<Kernel> edge_, sum_, copy_, stream_, stream_sum_;
    std::unique_ptr<Buffer> partial_, ap_, bp_, pieces_, counts_;
};

// ---- A step's own host code, beside its record (Step::hooks, read back as MatmulHooks) ----

// One run of a matmul step as its hooks see it: C = A * B, A M x K, B K x N.
struct MatmulProblem {
    Device& dev;
    const RunConfig& cfg;
    StepRun& s;
    std::size_t M, N, K;
    int mi, ni, ki; // the same as the kernels take them
};

// A step's work on one problem, from before its build to its check. This base is every step's
// that has no hooks: the kernel over C in whole work-groups, C checked against the float32 bound.
class MatmulWork {
  public:
    using Timed = std::function<std::pair<Event, Event>()>;
    explicit MatmulWork(MatmulProblem& p) : p_(p) {}
    virtual ~MatmulWork() = default;
    // Whether the record's needs are checked (tf32's emulation runs anywhere).
    virtual bool needs_apply() const { return true; }
    // The step's defines and checks for the build of `shapes` (opts holds the user's defines).
    virtual void prepare(BuildOptions&, const std::vector<Shape>&) {}
    // The timed launches of C = A * B by `kernel`, built with `opts` in shape `g`; `range` covers
    // C in whole groups of g.
    virtual Timed launch(Kernel& kernel, const Shape& g, const Range& range,
                         const BuildOptions& opts, const Buffer& a, const Buffer& b, Buffer& c);
    // C against the reference of its checked entries (r.verified).
    virtual void check(Result& r, std::span<const float> c, const matmul_ref::Reference& ref,
                       std::span<const float> a, std::span<const float> b);
    // The note of a run whose C is not checked.
    virtual void unverified(Result&) {}

  protected:
    MatmulProblem& p_;
};

// matmul's hooks on a step record: `begin` makes the step's work for a problem (empty: the base
// MatmulWork's); `user_local`: --local is the step's work-group, as given (naive).
struct MatmulHooks : StepHooks {
    std::function<std::unique_ptr<MatmulWork>(MatmulProblem&)> begin{};
    bool user_local = false;
};
// The hooks of best (matmul_best_step.cpp), and of tf32 and tc3, the tensor-core steps, which
// share their host code (matmul_tf32.cpp; tc3's check is matmul_tc3.cpp's tc3_check).
std::shared_ptr<const StepHooks> best_hooks();
std::shared_ptr<const StepHooks> tf32_hooks();
std::shared_ptr<const StepHooks> tc3_hooks();

} // namespace duet::apps
