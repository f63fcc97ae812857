#include "cost/pipelinecheck.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace railyard {

namespace {

/**
 * Upper bound on stages x micro-batches x chunks. The simulation keeps a few doubles and up to
 * four events per compute op, so this caps memory near 300 MB; real runs (p = 64, m = 4096,
 * v = 8 is 2^21) sit at or below it.
 */
constexpr std::int64_t kMaxPipelineOps = std::int64_t { 1 } << 21;

std::string formatNumber(double v)
{
    std::string s = std::to_string(v);
    // std::to_string gives fixed 6 decimals; trim the zeros for a readable message.
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0')
            s.pop_back();
        if (!s.empty() && s.back() == '.')
            s.pop_back();
    }
    return s;
}

/// Checks size (`expected`, or 0 when `allowEmpty`) and that every entry is finite and >= 0.
void checkTimes(const std::vector<double> &times, std::size_t expected, bool allowEmpty,
    const std::string &field, const char *what)
{
    if (times.size() != expected && !(allowEmpty && times.empty())) {
        throw ScenarioError(field,
            "expected " + std::to_string(expected) + " " + what + (allowEmpty ? " (or none)" : "")
                + ", got " + std::to_string(times.size()));
    }
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (!std::isfinite(times[i]) || times[i] < 0.0) {
            throw ScenarioError(field + "[" + std::to_string(i) + "]",
                "time must be a finite number of seconds >= 0, got " + formatNumber(times[i]));
        }
    }
}

} // namespace

void checkPipelineInput(const PipelineInput &in)
{
    if (in.stages < 1)
        throw ScenarioError(
            "parallel.pp", "a pipeline needs at least 1 stage, got " + std::to_string(in.stages));
    if (in.stages > limits::kMaxDegree)
        throw ScenarioError("parallel.pp",
            "at most " + std::to_string(limits::kMaxDegree) + " stages, got "
                + std::to_string(in.stages));
    if (in.microbatches < 1)
        throw ScenarioError("training.microbatches",
            "a pipeline needs at least 1 micro-batch, got " + std::to_string(in.microbatches));
    if (in.microbatches > limits::kMaxMicrobatches)
        throw ScenarioError("training.microbatches",
            "at most " + std::to_string(limits::kMaxMicrobatches) + " micro-batches, got "
                + std::to_string(in.microbatches));

    std::int64_t chunks = 1;
    if (in.kind == ScheduleKind::Interleaved) {
        if (in.chunks < 2)
            throw ScenarioError("training.interleave",
                "the interleaved schedule needs at least 2 model chunks per "
                "stage, got "
                    + std::to_string(in.chunks));
        if (in.chunks > limits::kMaxLayers)
            throw ScenarioError("training.interleave",
                "at most " + std::to_string(limits::kMaxLayers) + " model chunks per stage, got "
                    + std::to_string(in.chunks));
        // Megatron-LM asserts this too: micro-batches enter each chunk in groups of pp.
        if (in.microbatches % in.stages != 0)
            throw ScenarioError("training.microbatches",
                "the interleaved schedule needs a multiple of the "
                "pipeline stages ("
                    + std::to_string(in.stages) + "), got " + std::to_string(in.microbatches));
        chunks = in.chunks;
    }
    if (in.kind == ScheduleKind::DualPipe) {
        // DualPipe feeds micro-batches from both ends (DeepSeek-V3 §3.2.1): rank r holds stage r
        // of one direction and stage p-1-r of the other, so the ranks pair up.
        if (in.stages % 2 != 0)
            throw ScenarioError("parallel.pp",
                "the dualpipe schedule needs an even number of pipeline stages (micro-batches "
                "enter from both ends, each rank holding two stages), got "
                    + std::to_string(in.stages));
        // deepseek-ai/DualPipe asserts num_chunks % 2 == 0 and num_chunks >= 2 * num_ranks:
        // half the micro-batches per direction, at least one per rank and direction.
        if (in.microbatches % 2 != 0 || in.microbatches < 2 * in.stages)
            throw ScenarioError("training.microbatches",
                "the dualpipe schedule needs an even number of micro-batches (half enter from "
                "each end) and at least twice the pipeline stages ("
                    + std::to_string(2 * in.stages) + "), got " + std::to_string(in.microbatches));
    }
    const std::int64_t ops = std::int64_t(in.stages) * in.microbatches * chunks;
    if (ops > kMaxPipelineOps)
        throw ScenarioError("training.microbatches",
            "stages x micro-batches x chunks = " + std::to_string(ops)
                + " exceeds the scheduler's limit of " + std::to_string(kMaxPipelineOps));

    const auto n = static_cast<std::size_t>(in.stages);
    checkTimes(in.forward, n, false, "pipeline.forward", "per-stage forward times");
    checkTimes(in.backward, n, true, "pipeline.backward", "per-stage backward times");
    checkTimes(in.sendForward, n - 1, true, "pipeline.sendForward", "per-boundary send times");
    checkTimes(in.sendBackward, n - 1, true, "pipeline.sendBackward", "per-boundary send times");
    const std::size_t virtualStages = n * static_cast<std::size_t>(chunks);
    checkTimes(in.chunkForward, virtualStages, true, "pipeline.chunkForward",
        "per-chunk forward times (stages x chunks)");
    checkTimes(in.chunkBackward, virtualStages, true, "pipeline.chunkBackward",
        "per-chunk backward times (stages x chunks)");
    checkTimes(in.forwardReady, virtualStages, true, "pipeline.forwardReady",
        "per-chunk ready times (stages x chunks)");
    checkTimes(in.weightGrad, n, true, "pipeline.weightGrad", "per-stage weight-gradient times");
    checkTimes(in.forwardComm, n, true, "pipeline.forwardComm", "per-stage communication times");
    checkTimes(in.backwardComm, n, true, "pipeline.backwardComm", "per-stage communication times");
    const auto backwardOf
        = [&in](std::size_t s) { return in.backward.empty() ? 0.0 : in.backward[s]; };
    for (std::size_t s = 0; s < in.weightGrad.size(); ++s) {
        if (in.weightGrad[s] > backwardOf(s))
            throw ScenarioError("pipeline.weightGrad[" + std::to_string(s) + "]",
                "the weight gradient is part of the backward: " + formatNumber(in.weightGrad[s])
                    + " s exceeds the stage's backward of " + formatNumber(backwardOf(s)) + " s");
    }
    for (const auto &[comm, total, field] :
        { std::tuple { &in.forwardComm, &in.forward, "pipeline.forwardComm" },
            std::tuple { &in.backwardComm, &in.backward, "pipeline.backwardComm" } }) {
        for (std::size_t s = 0; s < comm->size(); ++s) {
            const double whole = s < total->size() ? (*total)[s] : 0.0;
            if ((*comm)[s] > whole)
                throw ScenarioError(std::string(field) + "[" + std::to_string(s) + "]",
                    "the exposed communication is part of the pass: " + formatNumber((*comm)[s])
                        + " s exceeds its " + formatNumber(whole) + " s");
        }
    }
    for (const auto &[wrap, field] : { std::pair { in.wrapForward, "pipeline.wrapForward" },
             std::pair { in.wrapBackward, "pipeline.wrapBackward" } }) {
        if (wrap && (!std::isfinite(*wrap) || *wrap < 0.0))
            throw ScenarioError(
                field, "time must be a finite number of seconds >= 0, got " + formatNumber(*wrap));
    }
}

} // namespace railyard
