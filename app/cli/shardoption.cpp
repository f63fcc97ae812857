#include "shardoption.h"

#include "command.h"

#include "base/scenarioerror.h"

#include <cstdint>

namespace railyard::cli {

void parseShard(const std::string &text, int &index, int &count)
{
    const std::size_t slash = text.find('/');
    const auto bad = [&text]() {
        return ScenarioError(
            "--shard", "expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
    };
    if (slash == std::string::npos)
        throw bad();
    std::int64_t i = 0, n = 0;
    try {
        i = parseInteger("--shard", text.substr(0, slash));
        n = parseInteger("--shard", text.substr(slash + 1));
    } catch (const ScenarioError &) {
        throw bad();
    }
    // A million shards is far beyond any job array (Slurm's MaxArraySize default is 1001).
    if (n < 1 || n > 1000000 || i < 0 || i >= n)
        throw bad();
    index = static_cast<int>(i);
    count = static_cast<int>(n);
}

} // namespace railyard::cli
