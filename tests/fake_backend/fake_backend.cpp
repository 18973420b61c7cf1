// A backend plugin that is not part of Duet: one device that describes itself and refuses
// everything else. Built outside the plugin directory, it shows that a plugin dropped into
// DUET_BACKEND_PATH is found, listed, selected and diagnosed without any change to Duet.
#include <duet/backend/backend.hpp>

namespace {

class FakeDevice final : public duet::Device {
  public:
    FakeDevice() {
        info_.backend = "fake";
        info_.name = "Fake Accelerator 1";
        info_.vendor = "Duet tests";
        info_.device_type = duet::DeviceType::accelerator;
        info_.type = duet::device_type_name(info_.device_type);
        info_.platform = "fake platform";
        info_.compute_units = 1;
        info_.max_work_group_size = 1;
        info_.max_work_item_sizes = {1, 1, 1};
        info_.caps.fp64 = true;
    }
    const duet::DeviceInfo& info() const override { return info_; }
    std::unique_ptr<duet::Queue> create_queue(const duet::QueueOptions&) override { refuse(); }
    std::unique_ptr<duet::Buffer> alloc_bytes(std::size_t) override { refuse(); }
    std::unique_ptr<duet::HostBuffer> alloc_host(std::size_t) override { refuse(); }

  protected:
    std::unique_ptr<duet::Kernel> do_load_kernel(const std::string&,
                                                 const duet::BuildOptions&) override {
        refuse();
    }

  private:
    [[noreturn]] static void refuse() {
        throw duet::Error::unavailable("the fake device runs nothing", "fake");
    }
    duet::DeviceInfo info_;
};

class FakeBackend final : public duet::Backend {
  public:
    duet::BackendReport report() const override {
        duet::BackendReport r;
        r.name = "fake";
        r.version = "fake 1.0";
        r.device_count = 1;
        return r;
    }
    std::size_t device_count() const override { return 1; }
    duet::Device& device(std::size_t) override { return device_; }
    std::vector<duet::Finding> diagnose() const override {
        return {{"PASS", "fake self-check", "the fake backend checked itself", ""}};
    }

  private:
    FakeDevice device_;
};

} // namespace

DUET_BACKEND_EXPORT int duet_backend_abi() {
    return DUET_BACKEND_ABI;
}
DUET_BACKEND_EXPORT duet::Backend* duet_backend_create() {
    return new FakeBackend();
}
