#include "studies/jobremap.h"

#include "fabric/fabric.h"
#include "scenario/jobssection.h"

#include <algorithm>

namespace railyard {

std::vector<std::size_t> jobsHitBy(
    const Scenario &shared, const std::vector<FailedComponent> &failures)
{
    const Fabric fabric = Fabric::build(shared.fabric);
    std::vector<FailedComponent> every = shared.failures;
    every.insert(every.end(), failures.begin(), failures.end());
    const std::vector<char> usable = usableSlots(fabric, every);
    std::vector<std::size_t> hit;
    for (std::size_t j = 0; j < shared.jobs.size(); ++j)
        for (const int slot : shared.jobs[j].slots)
            if (slot >= 0 && static_cast<std::size_t>(slot) < usable.size()
                && !usable[static_cast<std::size_t>(slot)]) {
                hit.push_back(j);
                break;
            }
    return hit;
}

Scenario withRemappedJob(const Scenario &shared, std::size_t index, const Scenario &remapped,
    const std::vector<FailedComponent> &failures)
{
    Scenario out = shared;
    for (const FailedComponent &f : failures)
        if (std::find(out.failures.begin(), out.failures.end(), f) == out.failures.end())
            out.failures.push_back(f);
    JobSpec &job = out.jobs.at(index);
    takeJobFields(job, remapped);
    adoptFirstJob(out);
    return out;
}

} // namespace railyard
