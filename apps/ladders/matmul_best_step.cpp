// matmul's best step, its host code beside its record (MatmulHooks, matmul.hpp): the plan for the
// problem (matmul_best_plan.cpp) and the build's defines it asks, then its launches
// (BestLaunch, matmul_best_launch.cpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "matmul.hpp"

namespace duet::apps {

namespace {

class BestWork final : public MatmulWork {
  public:
    using MatmulWork::MatmulWork;

    // best's plan for C in its shape's blocks, and the defines the plan and the device ask.
    void prepare(BuildOptions& opts, const std::vector<Shape>& shapes) override {
        const DeviceInfo& info = p_.dev.info();
        plan_ = best_plan(p_.cfg, info, p_.M, p_.N, p_.K, shapes.front().rows, shapes.front().cols);
        for (auto& d : best_defines(p_.cfg, plan_.n, plan_.k))
            opts.defines.push_back(std::move(d));
        if (plan_.clamp && !user_sets(p_.cfg, {"BEST_CLAMP"}))
            opts.defines.emplace_back("BEST_CLAMP", "1");
        if (plan_.rows_out && !user_sets(p_.cfg, {"BEST_ROWS_OUT"}))
            opts.defines.emplace_back("BEST_ROWS_OUT", "1");
        if (plan_.splits > 1) // a split of K is a build of its own
            opts.defines.emplace_back("BEST_SPLIT", "1");
    }

    Timed launch(Kernel& kernel, const Shape& g, const Range&, const BuildOptions& opts,
                 const Buffer& a, const Buffer& b, Buffer& c) override {
        launch_.emplace(p_.dev, p_.s.queue(), p_.cfg, opts, kernel, g, plan_, p_.M, p_.N, p_.K,
                        [this](std::string text) { p_.s.note(std::move(text)); });
        return [this, &a, &b, &c] { return (*launch_)(a, b, c); };
    }

  private:
    BestPlan plan_;
    std::optional<BestLaunch> launch_;
};

} // namespace

std::shared_ptr<const StepHooks> best_hooks() {
    auto h = std::make_shared<MatmulHooks>();
    h->begin = [](MatmulProblem& p) { return std::make_unique<BestWork>(p); };
    return h;
}

} // namespace duet::apps
