#pragma once
// BabelStream's own check of its results (main.cpp's check_solution): the expected values of a,
// b, c and the dot after `times` rounds of the kernels run, from the start values, and each
// element within upstream's relative tolerance (100 epsilon; the dot 10^7 epsilon).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace ports {

template <class T>
std::size_t check_solution(std::size_t times, const std::vector<std::string>& ops, const T* a,
                           const T* b, const T* c, T sum, std::size_t n, double start_a,
                           double start_b, double start_c, double start_scalar) {
    T gold_a = start_a, gold_b = start_b, gold_c = start_c, gold_s = T(0.);
    const T scalar = start_scalar;
    for (std::size_t k = 0; k < times; ++k)
        for (const auto& op : ops) {
            if (op == "Copy")
                gold_c = gold_a;
            else if (op == "Mul")
                gold_b = scalar * gold_c;
            else if (op == "Add")
                gold_c = gold_a + gold_b;
            else if (op == "Triad")
                gold_a = gold_b + scalar * gold_c;
            else if (op == "Nstream")
                gold_a += gold_b + scalar * gold_c;
            else if (op == "Dot")
                gold_s = gold_a * gold_b * T(n);
        }
    std::size_t failed = 0;
    const T max_rel = std::numeric_limits<T>::epsilon() * T(100.0);
    const T max_rel_dot = std::numeric_limits<T>::epsilon() * T(10000000.0);
    const auto check = [&](const char* name, T is, T should, T mrel, std::size_t i) {
        const T diff = std::abs(is - should);
        const T largest = std::max(std::abs(is), std::abs(should));
        if (!(diff <= largest * mrel) || std::isnan(is)) {
            if (++failed <= 10)
                std::fprintf(stderr, "FAILED validation of %s[%zu]: %g (is) != %g (should)\n", name,
                             i, double(is), double(should));
        }
    };
    if (std::find(ops.begin(), ops.end(), "Dot") != ops.end())
        check("sum", sum, gold_s, max_rel_dot, 0);
    for (std::size_t i = 0; i < n; ++i) {
        check("a", a[i], gold_a, max_rel, i);
        check("b", b[i], gold_b, max_rel, i);
        check("c", c[i], gold_c, max_rel, i);
    }
    return failed;
}

} // namespace ports
