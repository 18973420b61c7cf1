#pragma once
// The registry of backends (internal to libduet): each plugin loaded once, when first needed;
// devices numbered in one global order.
#include <string>
#include <vector>

#include "plugin_loader.hpp"

namespace duet::detail {

// The backend called `name`, loaded now if it was not; a name Duet does not know is a usage
// Error listing the known ones. Opens that plugin only.
const LoadedBackend& backend_named(const std::string& name);

// Every backend, loaded, in known_backends() order.
const std::vector<const LoadedBackend*>& all_backends();

// Every device of every backend, in global-index order.
const std::vector<Device*>& all_devices();

} // namespace duet::detail
