#include "io/measuredruns.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exportoptions.h"
#include "export/ncclplan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace railyard {

namespace {

std::string stem(const std::string &path)
{
    std::string name = path.substr(path.find_last_of('/') + 1);
    const std::size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// The single size a command line sweeps (-b N -e N, or --minbytes / --maxbytes), 0 if none.
long long singleSize(const std::vector<std::string> &args)
{
    long long b = -1, e = -2;
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        const std::string &a = args[i];
        long long *to = a == "-b" || a == "--minbytes" ? &b : a == "-e" || a == "--maxbytes" ? &e : nullptr;
        if (!to)
            continue;
        const std::string &v = args[i + 1];
        if (v.empty() || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
            return 0; // "8G" and the like: a sweep, not one plan size
        *to = std::stoll(v.substr(0, 18));
    }
    return b == e ? b : 0;
}

/// The run's name: its file, or "FILE#BINARY" for one table of a file of several.
const std::string &runName(const NcclTestsLog &l)
{
    return l.name.empty() ? l.file : l.name;
}

std::string runIds(const std::vector<PlanRun> &plan)
{
    std::string out;
    for (std::size_t i = 0; i < plan.size() && i < 12; ++i)
        out += (out.empty() ? "" : ", ") + plan[i].id;
    if (plan.size() > 12)
        out += ", ... (" + std::to_string(plan.size()) + " runs)";
    return out.empty() ? std::string("none") : out;
}

} // namespace

std::optional<CollectiveAlgorithm> algorithmOfNcclAlgo(const std::string &value)
{
    const std::string v = lower(value);
    if (v == "ring")
        return CollectiveAlgorithm::Ring;
    if (v == "tree")
        return CollectiveAlgorithm::Tree;
    if (v == "nvls" || v == "nvlstree")
        return CollectiveAlgorithm::Nvls;
    if (v == "pat")
        return CollectiveAlgorithm::Pat;
    return std::nullopt;
}

std::vector<PlanRun> ncclPlanRuns(const CostEngine &engine)
{
    ExportOptions options;
    options.jsonPlan = true;
    const nlohmann::json plan = nlohmann::json::parse(exportdetail::exportNcclPlan(engine, options));
    std::vector<PlanRun> out;
    for (const nlohmann::json &t : plan.at("tests")) {
        PlanRun r;
        r.id = t.at("name").get<std::string>();
        parseCollective(t.at("collective").get<std::string>(), r.op);
        r.bytes = t.at("bytes").get<long long>();
        r.groups = t.at("groups").get<int>();
        const std::vector<int> ranks = t.at("ranks").get<std::vector<int>>();
        const std::size_t size = ranks.size() / static_cast<std::size_t>(std::max(1, r.groups));
        for (std::size_t g = 0; g < static_cast<std::size_t>(r.groups); ++g)
            r.members.emplace_back(ranks.begin() + static_cast<std::ptrdiff_t>(g * size),
                ranks.begin() + static_cast<std::ptrdiff_t>((g + 1) * size));
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<MeasuredRun> matchMeasuredRuns(const CostEngine &engine,
    const std::vector<NcclTestsLog> &logs, const std::vector<RunBinding> &bindings)
{
    const std::vector<PlanRun> plan = ncclPlanRuns(engine);
    const auto planRun = [&plan](const std::string &id) -> const PlanRun * {
        for (const PlanRun &r : plan)
            if (r.id == id)
                return &r;
        return nullptr;
    };
    for (const RunBinding &b : bindings) {
        if (b.ranks.empty() && !planRun(b.id))
            throw ScenarioError("--run " + b.id + "=" + b.file,
                "\"" + b.id + "\" is no run of this scenario's nccl-plan (runs: " + runIds(plan) + ")");
        if (std::none_of(logs.begin(), logs.end(), [&b](const NcclTestsLog &l) { return runName(l) == b.file; })) {
            const auto tables = std::count_if(logs.begin(), logs.end(),
                [&b](const NcclTestsLog &l) { return l.file == b.file; });
            throw ScenarioError("--run " + b.id + "=" + b.file,
                tables > 1 ? "the file holds " + std::to_string(tables)
                        + " result tables: name one as FILE#BINARY (FILE#N when a binary repeats)"
                           : std::string("names no measured file given"));
        }
    }

    std::vector<MeasuredRun> out;
    for (const NcclTestsLog &log : logs) {
        MeasuredRun m;
        m.file = runName(log);
        std::vector<std::vector<int>> groups;
        std::optional<Collective> runOp;
        const auto binding = std::find_if(bindings.begin(), bindings.end(),
            [&m](const RunBinding &b) { return b.file == m.file; });
        const PlanRun *p = nullptr;
        if (binding != bindings.end()) {
            m.id = binding->id;
            if (!binding->ranks.empty())
                groups = { binding->ranks };
            else
                p = planRun(binding->id);
        } else if ((p = planRun(stem(log.file))) && (log.table == 0 || (log.op && *log.op == p->op))) {
            // A file of several tables is the run its name says for the table of that run's
            // collective; its other tables are matched as below.
            m.id = p->id;
        } else {
            const long long size = singleSize(log.args);
            std::vector<const PlanRun *> hits;
            for (const PlanRun &r : plan)
                if (size > 0 && r.bytes == size && r.groups == 1 && log.op && *log.op == r.op)
                    hits.push_back(&r);
            if (hits.size() != 1)
                throw ScenarioError(m.file,
                    "cannot tell which run this log measures (its name is no run id"
                    + std::string(hits.size() > 1 ? ", and its command line fits several runs" : "")
                    + "); name it with --run ID=" + m.file + " (runs: " + runIds(plan)
                    + "; or ranks such as 0-7, tp:0, all)");
            p = hits.front();
            m.id = p->id;
        }
        if (p) {
            groups = p->members;
            runOp = p->op;
        }
        m.op = runOp.value_or(log.op.value_or(Collective::AllReduce));
        if (!runOp && !log.op)
            m.note = "collective assumed all-reduce (the log names no binary)";
        if (log.op && *log.op != m.op)
            throw ScenarioError(m.file,
                "mixed ops: the log measures " + log.binary + ", run " + m.id + " is a "
                    + std::string(collectiveName(m.op)));
        if (!log.op && !log.binary.empty() && !runOp)
            throw ScenarioError(m.file, log.binary + " is a collective Railyard does not model");
        std::size_t world = 0;
        for (const auto &g : groups)
            world += g.size();
        if (log.ranks > 0 && static_cast<std::size_t>(log.ranks) != world)
            throw ScenarioError(m.file,
                "wrong rank count: the log lists " + std::to_string(log.ranks) + " ranks, run "
                    + m.id + " has " + std::to_string(world)
                    + (groups.size() > 1 ? " (" + std::to_string(groups.size()) + " groups)" : std::string()));
        m.ranks = groups.front();
        if (groups.size() > 1) {
            m.fit = false;
            m.note = "every group of its kind at once: reported, not fitted (the fit takes one group alone)";
        }
        if (!log.ncclAlgo.empty()) {
            m.algorithm = algorithmOfNcclAlgo(log.ncclAlgo);
            if (!m.algorithm)
                m.note += (m.note.empty() ? "" : "; ") + std::string("NCCL_ALGO=") + log.ncclAlgo
                    + " is not one algorithm Railyard models: fitted for every algorithm";
        }
        for (const NcclTestsRow &r : log.rows)
            for (const NcclTestsTiming *t : { &r.outOfPlace, &r.inPlace })
                if (t->present && r.bytes > 0)
                    m.samples.emplace_back(r.bytes, t->timeUs * 1e-6);
        if (m.samples.empty())
            throw ScenarioError(m.file, "no row with a size above 0 bytes");
        out.push_back(std::move(m));
    }
    return out;
}

} // namespace railyard
