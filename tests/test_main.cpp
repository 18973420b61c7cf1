#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "problem.hpp"

int main(int argc, char** argv) {
    const int code = doctest::Context(argc, argv).run();
    // The apps' shared device copies and download spaces go before the backends' own teardown.
    duet::apps::release_shared_uploads();
    return code;
}
