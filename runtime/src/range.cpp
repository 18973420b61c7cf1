#include <duet/error.hpp>
#include <duet/range.hpp>

#include <limits>

namespace duet {

Range Range::rounded_up() const {
    Range r = *this;
    for (int d = 0; d < 3; ++d)
        if (has_local_ && local_[d] > 0) {
            if (global_[d] > std::numeric_limits<std::size_t>::max() - (local_[d] - 1))
                throw Error::usage("launch range " + to_string() +
                                   ": rounding the global size up overflows size_t");
            r.global_[d] = round_up(global_[d], local_[d]);
        }
    return r;
}

std::string Range::to_string() const {
    auto dims_of = [this](const std::array<std::size_t, 3>& v) {
        std::string s = std::to_string(v[0]);
        for (int d = 1; d < dims_; ++d) {
            s += 'x';
            s += std::to_string(v[d]);
        }
        return s;
    };
    return dims_of(global_) + (has_local_      ? " / " + dims_of(local_)
                               : driver_local_ ? std::string(" / driver's choice")
                                               : std::string());
}

void Range::validate() const {
    for (int d = 0; d < 3; ++d) {
        if (global_[d] == 0)
            throw Error::usage("launch range " + to_string() + " has a zero global size");
        if (has_local_ && local_[d] == 0)
            throw Error::usage("launch range " + to_string() + " has a zero local size");
        if (has_local_ && global_[d] % local_[d] != 0)
            throw Error::usage("launch range " + to_string() +
                               ": the global size is not a multiple of the local size in "
                               "dimension " +
                               std::to_string(d) +
                               "; round it up (Range::rounded_up) and bounds-check in the kernel");
    }
}

} // namespace duet
