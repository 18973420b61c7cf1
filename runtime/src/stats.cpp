#include <algorithm>
#include <numeric>

#include <duet/stats.hpp>

namespace duet {

Stats summarize(std::vector<double> s) {
    Stats st;
    if (s.empty())
        return st;
    std::sort(s.begin(), s.end());
    const std::size_t n = s.size();
    st.count = n;
    st.min = s.front();
    st.max = s.back();
    st.median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    st.mean = std::accumulate(s.begin(), s.end(), 0.0) / double(n);
    return st;
}

} // namespace duet
