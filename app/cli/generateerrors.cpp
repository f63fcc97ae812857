/**
 * `generate`'s errors in the words of its flags: the loader and the engine name JSON fields,
 * this file maps each field back to the flag that sets it and, for the layout and batch
 * checks users hit most, says which flag to pass.
 */
#include "generateerrors.h"

#include "base/sizelimits.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <numeric>
#include <optional>

namespace railyard::cli {

namespace {

using nlohmann::json;

/// The flag setting `field` ("training.layers_per_stage[3]" is its list's), the given one
/// first when two flags set the same field (--sequence-parallel / --no-sequence-parallel).
const FlagField *flagForField(const std::string &field, const std::vector<FlagField> &flags)
{
    const FlagField *first = nullptr;
    for (const FlagField &f : flags) {
        const bool element = field.rfind(f.field + "[", 0) == 0;
        if (field != f.field && !element)
            continue;
        if (f.given)
            return &f;
        if (first == nullptr)
            first = &f;
    }
    return first;
}

/// The value at a dotted path ("training.global_batch"), ignoring a trailing "[i]".
std::optional<json> valueAt(const json &values, const std::string &field)
{
    const std::string path = field.substr(0, field.find('['));
    const json *at = &values;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = std::min(path.find('.', start), path.size());
        const std::string key = path.substr(start, dot - start);
        if (!at->is_object() || !at->contains(key))
            return std::nullopt;
        at = &at->at(key);
        start = dot + 1;
    }
    return *at;
}

std::int64_t integerAt(const json &values, const std::string &field, std::int64_t fallback)
{
    const std::optional<json> v = valueAt(values, field);
    return v && v->is_number_integer() ? v->get<std::int64_t>() : fallback;
}

bool wordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

/// Every whole-word `word` in `text` replaced by `by`.
void replaceWord(std::string &text, const std::string &word, const std::string &by)
{
    std::size_t at = 0;
    while ((at = text.find(word, at)) != std::string::npos) {
        const std::size_t end = at + word.size();
        const bool starts = at == 0 || !wordChar(text[at - 1]);
        // A sentence's full stop after the word is not part of a path.
        const bool ends = end == text.size() || !wordChar(text[end])
            || (text[end] == '.' && (end + 1 == text.size() || text[end + 1] == ' '));
        if (starts && ends) {
            text.replace(at, word.size(), by);
            at += by.size();
        } else {
            at = end;
        }
    }
}

/// The reason with field paths ("model.layers") and the fields' own names where they cannot
/// be mistaken for words ("micro_batch", "overlap_grad_reduce") replaced by their flags.
std::string inFlagWords(std::string reason, const std::vector<FlagField> &flags)
{
    for (const FlagField &f : flags)
        if (flagForField(f.field, flags) == &f)
            replaceWord(reason, f.field, "--" + f.flag);
    for (const FlagField &f : flags) {
        const std::string key = f.field.substr(f.field.rfind('.') + 1);
        if (key.find('_') != std::string::npos && flagForField(f.field, flags) == &f)
            replaceWord(reason, key, "--" + f.flag);
    }
    return reason;
}

/// Where a value the user did not give came from.
std::string origin(const std::string &field)
{
    if (field.rfind("model.", 0) == 0)
        return "the model preset's";
    if (field == "parallel.dp")
        return "derived: GPU slots / (tp x pp x cp)";
    if (field == "fabric.nic_gbps" || field == "fabric.scaleup_gbps")
        return "the device preset's";
    return "the default";
}

/// " (--layers not given: 96, the model preset's)" for a flag left out, else "".
std::string notGiven(const FlagField &f, const json &values)
{
    if (f.given)
        return {};
    const std::optional<json> v = valueAt(values, f.field);
    if (!v || v->is_object() || v->is_array())
        return " (--" + f.flag + " not given)";
    const std::string shown = v->is_string() ? v->get<std::string>() : v->dump();
    return " (--" + f.flag + " not given: " + shown + ", " + origin(f.field) + ")";
}

/// The divisors of `n` nearest `near` from below and above (either 0 when there is none).
std::pair<std::int64_t, std::int64_t> divisorsAround(std::int64_t n, std::int64_t near)
{
    std::int64_t below = 0, above = 0;
    for (std::int64_t d = std::min(near, n); d >= 1 && below == 0; --d)
        if (n % d == 0)
            below = d;
    for (std::int64_t d = near + 1; d <= n && above == 0; ++d)
        if (n % d == 0)
            above = d;
    return { below, above };
}

std::string orList(std::pair<std::int64_t, std::int64_t> d)
{
    if (d.first > 0 && d.second > 0)
        return "such as " + std::to_string(d.first) + " or " + std::to_string(d.second);
    return "such as " + std::to_string(std::max(d.first, d.second));
}

/// The flag to pass for the checks users hit most; "" when there is no simple fix.
std::string fix(const std::string &field, const std::string &reason, const json &values)
{
    const std::int64_t micro = integerAt(values, "training.micro_batch", 1);
    const std::int64_t dp = integerAt(values, "parallel.dp", 1);
    const std::int64_t perStep = std::max<std::int64_t>(1, micro * dp);
    if (field == "training.global_batch" && reason.find("micro-batches") != std::string::npos)
        return "; pass a --global-batch of at most "
            + std::to_string(limits::kMaxMicrobatches * perStep) + " or a larger --micro-batch";
    if (field == "model.layers" && reason.find("split evenly") != std::string::npos) {
        // Megatron-LM's rule: layers % (pp x virtual stages) == 0 (workloadcheck.cpp).
        const std::int64_t layers = integerAt(values, "model.layers", 1);
        const std::int64_t chunks = reason.find("interleave") != std::string::npos
            ? std::max<std::int64_t>(1, integerAt(values, "training.interleave", 1))
            : 1;
        const std::int64_t pp = integerAt(values, "parallel.pp", 1);
        if (layers % chunks == 0)
            return "; pass a --pp that divides the " + std::to_string(layers / chunks)
                + (chunks > 1 ? " layers per model chunk (" : " layers (")
                + orList(divisorsAround(layers / chunks, pp)) + ")";
        return "; pass --layers-per-stage for an uneven split";
    }
    const bool tpSplit
        = field == "model.heads" || field == "model.kv_heads" || field == "model.ffn";
    if (tpSplit && reason.find("split over tp") != std::string::npos) {
        // Megatron-Core divides heads, query groups and the MLP size by tp.
        const std::int64_t heads = integerAt(values, "model.heads", 1);
        const std::int64_t kv = integerAt(values, "model.kv_heads", 0);
        const std::int64_t all = std::gcd(
            std::gcd(heads, kv == 0 ? heads : kv), integerAt(values, "model.ffn", heads));
        return "; pass a --tp that divides " + std::to_string(all) + " ("
            + orList(divisorsAround(all, integerAt(values, "parallel.tp", 1))) + ")";
    }
    return {};
}

} // namespace

ScenarioError errorNamingFlags(
    const ScenarioError &error, const std::vector<FlagField> &flags, const nlohmann::json &values)
{
    const std::string &field = error.field();
    std::string raw = error.reason();
    replaceWord(raw, "servers * gpus_per_server", "--servers x --gpus-per-server");
    const std::string reason = inFlagWords(raw, flags);
    // In a generated file the placement makes the mapping.
    if (field == "mapping")
        return ScenarioError("--placement", reason);
    // The world does not fit the fabric: any of the degrees, or the servers.
    if (field == "parallel")
        return ScenarioError(
            "--tp x --pp x --dp x --cp", reason + "; lower a degree or add --servers");
    // The fabric's size limits: its GPU slots, or its switch count.
    if (field == "fabric" && reason.find("GPU slots") != std::string::npos)
        return ScenarioError("--servers x --gpus-per-server", reason);
    if (field == "fabric" && reason.find("spines") != std::string::npos)
        return ScenarioError("--spines, --super-spines", reason);
    const FlagField *flag = flagForField(field, flags);
    if (flag == nullptr)
        return ScenarioError(field, reason);
    const std::string name = "--" + flag->flag;
    if (field == "training.global_batch" && reason.find("is not a multiple") != std::string::npos) {
        // Micro-batches per replica = global batch / (micro-batch x dp) (Megatron-LM's
        // num_microbatches); the next multiple up is the nearest batch that divides.
        const std::int64_t batch = integerAt(values, field, 0);
        const std::int64_t micro = integerAt(values, "training.micro_batch", 1);
        const std::int64_t dp = integerAt(values, "parallel.dp", 1);
        const std::int64_t perStep = std::max<std::int64_t>(1, micro * dp);
        const std::int64_t next = (batch + perStep - 1) / perStep * perStep;
        const auto dpFlag = std::find_if(
            flags.begin(), flags.end(), [](const FlagField &f) { return f.flag == "dp"; });
        const bool dpGiven = dpFlag != flags.end() && dpFlag->given;
        return ScenarioError(name,
            std::to_string(batch) + (flag->given ? "" : " (the default)")
                + " is not a multiple of --micro-batch x --dp = " + std::to_string(micro) + " x "
                + std::to_string(dp) + (dpGiven ? "" : " (dp derived from the GPU slots)") + " = "
                + std::to_string(perStep) + ": pass " + name + " " + std::to_string(next)
                + " (or a multiple of " + std::to_string(perStep) + ")");
    }
    return ScenarioError(name, reason + notGiven(*flag, values) + fix(field, reason, values));
}

} // namespace railyard::cli
