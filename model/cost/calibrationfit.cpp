#include "cost/calibrationfit.h"

#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "cost/collectiveestimate.h"
#include "cost/costengine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace railyard {

namespace {

/** A run as the fit sees it: its distinct sizes and its samples indexed by them. */
struct FitRun
{
    const MeasuredRun *run = nullptr;
    std::vector<long long> sizes;
    std::vector<std::pair<int, double>> samples; ///< (size index, measured seconds)
    CollectiveResult reference; ///< the default engine at the largest size
    Tier reach = Tier::ScaleUp;
    Tier bottleneck = Tier::ScaleUp;
    std::string algorithm; ///< the calibration key: the forced algorithm's plan name, "" = any
};

/** The free parameters of one group: α (µs) of `alphaTier`, ln(bandwidth factor) of `bwTier`. */
struct Group
{
    Tier alphaTier = Tier::ScaleUp;
    Tier bwTier = Tier::ScaleUp;
    std::string algorithm;
    std::vector<FitRun *> runs;
    bool fitAlpha = true;
    bool fitBandwidth = true;
};

double median(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    const std::size_t m = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
    double hi = v[m];
    if (v.size() % 2 == 1)
        return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m)));
}

/// The plan algorithm name a forced scenario option runs (the planner's fallbacks aside).
std::string keyOf(const std::optional<CollectiveAlgorithm> &a)
{
    if (!a || *a == CollectiveAlgorithm::Auto)
        return std::string();
    switch (*a) {
    case CollectiveAlgorithm::Ring:
        return "ring";
    case CollectiveAlgorithm::MemberOrder:
        return "member-order";
    case CollectiveAlgorithm::Tree:
        return "tree";
    case CollectiveAlgorithm::Nvls:
        return "nvls";
    case CollectiveAlgorithm::Hierarchical:
        return "hierarchical";
    case CollectiveAlgorithm::Pat:
        return "pat";
    case CollectiveAlgorithm::Auto:
        break;
    }
    return std::string();
}

class Fitter
{
public:
    Fitter(CostEngine &engine, const CalibrationFitOptions &options)
        : m_engine(engine)
        , m_options(options)
        , m_device(nccltuning::deviceTuning(engine.scenario().device, engine.scenario().collectives))
    {
    }

    /** The engine's time for one size and the latency part of it. */
    struct Predicted
    {
        double time = 0.0;
        double alpha = 0.0;
    };

    /// The engine's time for every distinct size of `r` under `calibration`.
    std::vector<Predicted> predict(const FitRun &r, const std::vector<CalibratedTier> &calibration)
    {
        nccltuning::DeviceTuning device = m_device;
        device.calibration = calibration;
        const Scenario &s = m_engine.scenario();
        const CollectiveAlgorithm option = r.run->algorithm.value_or(s.collectives.algorithm);
        std::vector<Predicted> out;
        out.reserve(r.sizes.size());
        for (const long long bytes : r.sizes) {
            const CollectiveResult c = estimateCollective(m_engine.fabric(),
                *m_engine.sharedRouter(), m_engine.mapping(), m_engine.layout().worldSize(),
                r.run->op, r.run->ranks, static_cast<double>(bytes), option, device,
                s.training.hierarchicalAllReduce);
            out.push_back({ c.time, c.alphaTime });
        }
        return out;
    }

    FitRun prepare(const MeasuredRun &m)
    {
        FitRun r;
        r.run = &m;
        for (const auto &[bytes, seconds] : m.samples)
            r.sizes.push_back(bytes);
        std::sort(r.sizes.begin(), r.sizes.end());
        r.sizes.erase(std::unique(r.sizes.begin(), r.sizes.end()), r.sizes.end());
        for (const auto &[bytes, seconds] : m.samples) {
            const auto at = std::lower_bound(r.sizes.begin(), r.sizes.end(), bytes);
            r.samples.emplace_back(static_cast<int>(at - r.sizes.begin()), seconds);
        }
        const Scenario &s = m_engine.scenario();
        r.reference = estimateCollective(m_engine.fabric(), *m_engine.sharedRouter(),
            m_engine.mapping(), m_engine.layout().worldSize(), m.op, m.ranks,
            static_cast<double>(r.sizes.back()), m.algorithm.value_or(s.collectives.algorithm),
            m_device, s.training.hierarchicalAllReduce);
        r.reach = r.reference.chain.networkSteps > 0 ? r.reference.chain.reach : Tier::ScaleUp;
        r.bottleneck = r.reference.bottleneckLink >= 0
            ? m_engine.fabric().link(r.reference.bottleneckLink).tier
            : r.reach;
        r.algorithm = keyOf(m.algorithm);
        return r;
    }

    /// Residuals ln(T_engine / T_measured) of every sample of the group, in order, and (when
    /// asked) each sample's latency share of the engine's time.
    std::vector<double> residuals(const Group &g, const std::vector<CalibratedTier> &calibration,
        std::vector<double> *latencyShare = nullptr)
    {
        std::vector<double> out;
        if (latencyShare)
            latencyShare->clear();
        for (const FitRun *r : g.runs) {
            const std::vector<Predicted> t = predict(*r, calibration);
            for (const auto &[i, measured] : r->samples) {
                const Predicted &p = t[static_cast<std::size_t>(i)];
                out.push_back(std::log(std::max(p.time, 1e-12) / measured));
                if (latencyShare)
                    latencyShare->push_back(p.time > 0.0 ? p.alpha / p.time : 0.0);
            }
        }
        return out;
    }

    /// The calibration with the group's parameters set to (alphaUs, lnScale).
    std::vector<CalibratedTier> with(const Group &g, double alphaUs, double lnScale) const
    {
        std::vector<CalibratedTier> c = m_fitted;
        const auto entry = [&](Tier t) -> CalibratedTier & {
            for (CalibratedTier &e : c)
                if (e.tier == t && e.algorithm == g.algorithm)
                    return e;
            CalibratedTier e;
            e.tier = t;
            e.algorithm = g.algorithm;
            c.push_back(e);
            return c.back();
        };
        if (g.fitAlpha)
            entry(g.alphaTier).stepLatencyUs = std::max(0.0, alphaUs);
        if (g.fitBandwidth)
            entry(g.bwTier).bandwidthScale = std::exp(lnScale);
        return c;
    }

    /// Weighted least squares in (α, ln scale) with weights from `weightsOf(residuals)`,
    /// recomputed every iteration (IRLS), each step a damped Gauss-Newton step on the weighted
    /// squares with the weights of its start (Levenberg-Marquardt).
    template<typename Weights>
    std::vector<double> solve(const Group &g, double &alpha, double &lnScale, Weights weightsOf)
    {
        double lambda = 1e-3;
        std::vector<double> r = residuals(g, with(g, alpha, lnScale));
        const auto loss = [](const std::vector<double> &res, const std::vector<double> &w) {
            double sum = 0.0;
            for (std::size_t i = 0; i < res.size(); ++i)
                sum += w[i] * res[i] * res[i];
            return sum;
        };
        for (int it = 0; it < m_options.maxIterations; ++it) {
            const std::vector<double> w = weightsOf(r);
            // Forward differences of the engine; its time is piecewise affine in α and 1/B.
            const double hA = std::max(1e-3, 1e-3 * alpha), hB = 1e-3;
            const std::vector<double> rA = g.fitAlpha ? residuals(g, with(g, alpha + hA, lnScale)) : r;
            const std::vector<double> rB = g.fitBandwidth ? residuals(g, with(g, alpha, lnScale + hB)) : r;
            double a11 = 0.0, a12 = 0.0, a22 = 0.0, b1 = 0.0, b2 = 0.0;
            for (std::size_t i = 0; i < r.size(); ++i) {
                const double j1 = (rA[i] - r[i]) / hA, j2 = (rB[i] - r[i]) / hB;
                a11 += w[i] * j1 * j1;
                a12 += w[i] * j1 * j2;
                a22 += w[i] * j2 * j2;
                b1 -= w[i] * j1 * r[i];
                b2 -= w[i] * j2 * r[i];
            }
            // A parameter no weighted point depends on stays where it is: one whose change by
            // its own size (α by max(α, 1 us), B by e) moves no kept residual by 1 %.
            double sensA = 0.0, sensB = 0.0;
            for (std::size_t i = 0; i < r.size(); ++i)
                if (w[i] > 0.0) {
                    sensA = std::max(sensA, std::abs(rA[i] - r[i]) / hA * std::max(alpha, 1.0));
                    sensB = std::max(sensB, std::abs(rB[i] - r[i]) / hB);
                }
            const bool freeA = g.fitAlpha && sensA > 0.01, freeB = g.fitBandwidth && sensB > 0.01;
            if (!freeA)
                a11 = 1.0, a12 = 0.0, b1 = 0.0;
            if (!freeB)
                a22 = 1.0, a12 = 0.0, b2 = 0.0;
            const double before = loss(r, w);
            bool improved = false;
            bool converged = false;
            for (int tries = 0; tries < 12 && !improved; ++tries) {
                const double m11 = a11 * (1.0 + lambda), m22 = a22 * (1.0 + lambda);
                const double det = m11 * m22 - a12 * a12;
                if (!(std::abs(det) > 0.0))
                    break;
                // Within the latency range a scenario reads back (base/physicalranges.h); the
                // scale's e^-6..e^3 lies inside its range [1e-6, 1e3] too.
                const double nextAlpha
                    = std::clamp(alpha + (b1 * m22 - a12 * b2) / det, 0.0, ranges::kMaxLatencyUs);
                const double nextScale = std::clamp(lnScale + (m11 * b2 - a12 * b1) / det, -6.0, 3.0);
                std::vector<double> next = residuals(g, with(g, nextAlpha, nextScale));
                if (loss(next, w) < before) {
                    converged = std::abs(nextAlpha - alpha) < 1e-4 * (1.0 + alpha)
                        && std::abs(nextScale - lnScale) < 1e-5;
                    alpha = nextAlpha;
                    lnScale = nextScale;
                    r = std::move(next);
                    lambda = std::max(1e-6, lambda * 0.3);
                    improved = true;
                } else {
                    lambda *= 10.0;
                }
            }
            if (!improved || converged)
                break;
        }
        return r;
    }

    /// Robust scale: 1.4826 x the median absolute deviation estimates the standard deviation
    /// at normal errors (Huber & Ronchetti s. 5.1); a floor of 1 % keeps a near-perfect fit
    /// from rejecting ordinary noise.
    static double robustScale(const std::vector<double> &r)
    {
        std::vector<double> dev;
        const double med = median(r);
        for (const double x : r)
            dev.push_back(std::abs(x - med));
        return std::max(1.4826 * median(dev), 0.01);
    }

    /// Tukey's biweight: (1 - (r/c)^2)^2 inside c, 0 outside (Beaton & Tukey, Technometrics
    /// 16(2), 1974).
    static std::vector<double> biweight(const std::vector<double> &r, double c)
    {
        std::vector<double> w;
        for (const double x : r) {
            const double u = x / c;
            w.push_back(std::abs(u) < 1.0 ? (1.0 - u * u) * (1.0 - u * u) : 0.0);
        }
        return w;
    }

    void fitGroup(Group &g, double alpha0Us)
    {
        double alpha = alpha0Us;
        double lnScale = 0.0;
        std::vector<double> r;
        if (!m_options.robust) {
            r = solve(g, alpha, lnScale, [](const std::vector<double> &x) {
                return std::vector<double>(x.size(), 1.0);
            });
        } else {
            // The two limits of T = α + S / B (Hockney): α from the sizes whose measured time
            // is within 1.5 x the run's shortest (latency-bound), B from those whose measured
            // busbw is at least 90 % of the run's best (the plateau). The sizes in between,
            // where NCCL hands over between protocols and the pipeline fills, are trimmed: the
            // two-parameter form cannot follow them, and they would pull B below the plateau.
            for (const FitRun *run : g.runs) {
                double shortest = std::numeric_limits<double>::infinity(), best = 0.0;
                for (const auto &[i, t] : run->samples) {
                    shortest = std::min(shortest, t);
                    best = std::max(best, static_cast<double>(run->sizes[static_cast<std::size_t>(i)]) / t);
                }
                for (const auto &[i, t] : run->samples) {
                    const double bw = static_cast<double>(run->sizes[static_cast<std::size_t>(i)]) / t;
                    m_trim.push_back(t <= 1.5 * shortest || bw >= 0.9 * best ? 1.0 : 0.0);
                }
            }
            // 1. Least squares on the kept sizes.
            r = solve(g, alpha, lnScale, [this](const std::vector<double> &) { return m_trim; });
            // 2. The same sizes Tukey-weighted at the scale of step 1's residuals (an
            //    MM-estimate: robust start, fixed scale, redescending weights): a stray slow
            //    row (a 68 us all-reduce among 13 us ones) ends with weight 0.
            std::vector<double> kept;
            for (std::size_t i = 0; i < r.size(); ++i)
                if (m_trim[i] > 0.0)
                    kept.push_back(r[i]);
            m_scale = m_options.tuning * robustScale(kept);
            r = solve(g, alpha, lnScale, [this](const std::vector<double> &x) { return weights(x); });
        }
        m_fitted = with(g, alpha, lnScale);
        const std::vector<double> w
            = m_options.robust ? weights(r) : std::vector<double>(r.size(), 1.0);
        m_trim.clear();
        std::size_t k = 0;
        for (const FitRun *run : g.runs)
            for (std::size_t i = 0; i < run->samples.size(); ++i, ++k)
                m_weights[run->run].push_back(w[k]);
    }

    /// Tukey's weights of the kept sizes, 0 for the trimmed ones.
    std::vector<double> weights(const std::vector<double> &r) const
    {
        std::vector<double> w = biweight(r, m_scale);
        for (std::size_t i = 0; i < w.size() && i < m_trim.size(); ++i)
            w[i] *= m_trim[i];
        return w;
    }

    double m_scale = 0.0;
    std::vector<double> m_trim; ///< per sample of the group being fitted: 1 kept, 0 trimmed
    std::vector<CalibratedTier> m_fitted;
    std::map<const MeasuredRun *, std::vector<double>> m_weights;
    CostEngine &m_engine;
    const CalibrationFitOptions &m_options;
    nccltuning::DeviceTuning m_device;
};

/// The default per-step wire latency of a chain's steps at a tier (µs).
double defaultStepUs(const CollectiveChain &chain, Tier tier)
{
    if (tier == Tier::ScaleUp)
        return chain.scaleUpSteps > 0 ? (chain.wire - chain.networkWire) / chain.scaleUpSteps * 1e6 : 0.0;
    return chain.networkSteps > 0 ? chain.networkWire / chain.networkSteps * 1e6 : 0.0;
}

} // namespace

CalibrationSpec fitCalibration(
    CostEngine &engine, const std::vector<MeasuredRun> &runs, const CalibrationFitOptions &options)
{
    Fitter fitter(engine, options);
    std::vector<FitRun> prepared;
    prepared.reserve(runs.size());
    for (const MeasuredRun &m : runs) {
        if (m.samples.empty())
            throw ScenarioError("runs", m.id + ": no measurement to fit");
        for (const auto &[bytes, seconds] : m.samples)
            if (bytes <= 0 || !(seconds > 0.0) || !std::isfinite(seconds))
                throw ScenarioError("runs", m.id + ": sizes and times must be positive");
        if (m.ranks.size() < 2)
            throw ScenarioError("runs", m.id + ": a group of one rank measures no communication");
        prepared.push_back(fitter.prepare(m));
    }

    // Groups by (reach tier, algorithm), the scale-up tier first.
    std::vector<Group> groups;
    for (FitRun &r : prepared) {
        if (!r.run->fit)
            continue;
        auto it = std::find_if(groups.begin(), groups.end(),
            [&](const Group &g) { return g.alphaTier == r.reach && g.algorithm == r.algorithm; });
        if (it == groups.end()) {
            Group g;
            g.alphaTier = r.reach;
            g.bwTier = r.bottleneck;
            g.algorithm = r.algorithm;
            groups.push_back(g);
            it = groups.end() - 1;
        }
        it->runs.push_back(&r);
    }
    if (groups.empty())
        throw ScenarioError("runs", "no measured run can be fitted (every run is report-only)");
    std::stable_sort(groups.begin(), groups.end(),
        [](const Group &a, const Group &b) { return a.alphaTier < b.alphaTier; });

    for (Group &g : groups) {
        // The bottleneck tier most of the group's runs have.
        std::map<Tier, int> votes;
        std::vector<long long> sizes;
        double latencyShare = 0.0;
        int shares = 0;
        for (const FitRun *r : g.runs) {
            ++votes[r->bottleneck];
            sizes.insert(sizes.end(), r->sizes.begin(), r->sizes.end());
            latencyShare += r->reference.time > 0.0 ? r->reference.alphaTime / r->reference.time : 0.0;
            ++shares;
        }
        g.bwTier = std::max_element(votes.begin(), votes.end(),
            [](const auto &a, const auto &b) { return a.second < b.second; })->first;
        std::sort(sizes.begin(), sizes.end());
        sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
        if (sizes.size() < 2) {
            // One size cannot separate α from B: fit the one that decides its time.
            const bool latencyBound = latencyShare / std::max(1, shares) > 0.5;
            g.fitAlpha = latencyBound;
            g.fitBandwidth = !latencyBound;
        }
        const CollectiveChain &chain = g.runs.front()->reference.chain;
        fitter.fitGroup(g, defaultStepUs(chain, g.alphaTier));
    }

    CalibrationSpec spec;
    spec.measuredAt = options.measuredAt;
    spec.ncclVersion = options.ncclVersion;
    spec.tiers = fitter.m_fitted;
    const Fabric &fabric = engine.fabric();
    for (FitRun &r : prepared) {
        CalibrationRun out;
        out.id = r.run->id;
        out.file = r.run->file;
        out.collective = std::string(collectiveName(r.run->op));
        out.ranks = r.run->ranks;
        out.tier = r.reach;
        out.bottleneckTier = r.bottleneck;
        out.algorithm = r.algorithm;
        out.fitted = r.run->fit;
        out.note = r.run->note;
        const auto before = fitter.predict(r, {});
        const auto after = fitter.predict(r, spec.tiers);
        const std::vector<double> &w = fitter.m_weights[r.run];
        for (std::size_t k = 0; k < r.samples.size(); ++k) {
            const auto [i, measured] = r.samples[k];
            CalibrationPoint p;
            p.bytes = r.sizes[static_cast<std::size_t>(i)];
            p.measuredUs = measured * 1e6;
            p.defaultUs = before[static_cast<std::size_t>(i)].time * 1e6;
            p.calibratedUs = after[static_cast<std::size_t>(i)].time * 1e6;
            p.weight = k < w.size() ? w[k] : 0.0;
            out.points.push_back(p);
        }
        spec.runs.push_back(std::move(out));
    }

    // Per tier entry: the defaults it replaced and the fit's quality on the runs it governs.
    for (CalibratedTier &t : spec.tiers) {
        double sse = 0.0, sumLog = 0.0, maxAbs = 0.0;
        std::vector<double> logs;
        for (std::size_t k = 0; k < prepared.size(); ++k) {
            const FitRun &r = prepared[k];
            if (!r.run->fit || r.algorithm != t.algorithm || (r.reach != t.tier && r.bottleneck != t.tier))
                continue;
            ++t.runs;
            if (t.defaultStepLatencyUs == 0.0)
                t.defaultStepLatencyUs = defaultStepUs(r.reference.chain, t.tier);
            if (r.reference.bottleneckLink >= 0 && fabric.link(r.reference.bottleneckLink).tier == t.tier) {
                const double line = fabric.link(r.reference.bottleneckLink).bandwidth * 8.0 / 1e9;
                const PlanAlgorithm a = r.reference.algorithm;
                nccltuning::DeviceTuning calibrated = nccltuning::deviceTuning(
                    engine.scenario().device, engine.scenario().collectives);
                const double eff0 = nccltuning::linkEfficiency(a, calibrated)[index(t.tier)];
                calibrated.calibration = spec.tiers;
                t.defaultBandwidthGbps = eff0 * line;
                if (t.bandwidthScale > 0.0)
                    t.bandwidthGbps = nccltuning::linkEfficiency(a, calibrated)[index(t.tier)] * line;
            }
            for (const CalibrationPoint &p : spec.runs[k].points) {
                const double e = std::log(p.calibratedUs / p.measuredUs);
                maxAbs = std::max(maxAbs, std::abs(e));
                if (p.weight <= 0.0)
                    continue; // trimmed or rejected: not part of the fit's quality
                sse += e * e;
                logs.push_back(std::log(p.measuredUs));
                sumLog += logs.back();
            }
        }
        t.points = static_cast<int>(logs.size());
        if (logs.empty())
            continue;
        const double mean = sumLog / static_cast<double>(logs.size());
        double sst = 0.0;
        for (const double l : logs)
            sst += (l - mean) * (l - mean);
        t.rmsResidual = std::sqrt(sse / static_cast<double>(logs.size()));
        t.maxResidual = maxAbs;
        t.rSquared = sst > 0.0 ? 1.0 - sse / sst : (sse == 0.0 ? 1.0 : 0.0);
    }
    return spec;
}

double plateauBusbwError(const CalibrationRun &run)
{
    double best = 0.0;
    for (const CalibrationPoint &p : run.points)
        best = std::max(best, static_cast<double>(p.bytes) / p.measuredUs);
    double worst = 0.0;
    for (const CalibrationPoint &p : run.points)
        if (static_cast<double>(p.bytes) / p.measuredUs >= 0.95 * best && p.calibratedUs > 0.0)
            worst = std::max(worst, std::abs(p.measuredUs / p.calibratedUs - 1.0));
    return worst;
}

} // namespace railyard
