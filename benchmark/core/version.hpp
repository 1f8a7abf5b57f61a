// The build's `git describe`, stamped at build time.
#pragma once

namespace lbbench {
const char* git_describe();
}
