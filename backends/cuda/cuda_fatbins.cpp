// Lookup in the table of embedded fatbins (the table itself is generated at configure time).
#include "cuda_fatbins.hpp"

namespace duet::cuda {

const EmbeddedFatbin* find_embedded_fatbin(std::string_view file) {
    for (const auto& f : embedded_fatbins())
        if (f.file == file)
            return &f;
    return nullptr;
}

} // namespace duet::cuda
