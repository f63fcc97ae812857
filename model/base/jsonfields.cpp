#include "base/jsonfields.h"

#include "base/scenarioerror.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace railyard {

namespace {

/// dump() that never throws: invalid UTF-8 (possible only in values built in code) becomes U+FFFD.
std::string dumpSafe(const nlohmann::json &value)
{
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Edit distance (Levenshtein), for "did you mean" on misspelt keys; keys are short.
std::size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            diagonal = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
        }
    }
    return row[b.size()];
}

/// Renders a key path: keys joined by '.', array levels as "[]" (a null entry).
std::string renderPath(const std::vector<const std::string *> &path)
{
    std::string out;
    for (const std::string *segment : path) {
        if (!segment) {
            out += "[]";
            continue;
        }
        if (!out.empty())
            out += '.';
        std::string shown = dumpSafe(nlohmann::json(*segment));
        shown = shown.substr(1, shown.size() - 2);
        out += shown.size() > 60 ? shown.substr(0, 60) + "..." : shown;
    }
    return out;
}

/// nlohmann's message without its "[json.exception.parse_error.101] " prefix, printable ASCII.
std::string parseErrorText(const char *what)
{
    std::string text(what);
    if (!text.empty() && text.front() == '[') {
        const std::size_t close = text.find("] ");
        if (close != std::string::npos)
            text.erase(0, close + 2);
    }
    for (char &c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f)
            c = '?';
    }
    return text;
}

/// Shortest text that reads back as `v`; whole numbers without ".0" (400, not 400.0).
std::string numberText(double v)
{
    if (v == std::floor(v) && std::fabs(v) < 1e15)
        return std::to_string(static_cast<std::int64_t>(v));
    return nlohmann::json(v).dump();
}

} // namespace

std::string jsonFieldPath(std::string_view parent, std::string_view key)
{
    if (parent.empty())
        return std::string(key);
    std::string path(parent);
    path += '.';
    path += key;
    return path;
}

std::string jsonElementPath(std::string_view array, std::size_t index)
{
    return std::string(array) + "[" + std::to_string(index) + "]";
}

std::string jsonTypeName(const nlohmann::json &value)
{
    return value.type_name();
}

std::string jsonQuote(const nlohmann::json &value, std::size_t maxChars)
{
    // dump() escapes control characters, so the message stays one printable line.
    std::string text = value.is_string() ? dumpSafe(value).substr(1) : dumpSafe(value);
    if (value.is_string())
        text.pop_back();
    if (text.size() > maxChars)
        text = text.substr(0, maxChars) + "...";
    return value.is_string() ? "'" + text + "'" : text;
}

namespace {

/**
 * The SAX handler of parseJsonGuarded: builds the DOM as nlohmann's json_sax_dom_parser does
 * (one append or insert per value, so linear in the input), refusing nesting deeper than
 * `maxDepth` and a repeated key as it meets them. It replaces nlohmann's callback parser, whose
 * end_object scans the parent container for a discarded value after every object
 * (json_sax_dom_callback_parser::end_object, nlohmann_json 3.11.2): quadratic on an array of
 * objects ({"a":[{},{},...]} with 400,000 objects took 35 s).
 *
 * With a stream key, each element of the array at that key of the top-level object is handed
 * to the stream callback when complete and then dropped, so a reader of a million-row record
 * never holds more than one row's DOM.
 */
class GuardedDomBuilder
{
public:
    using json = nlohmann::json;

    GuardedDomBuilder(
        json &root, int maxDepth, std::string_view streamKey, const JsonElementSink *sink)
        : m_root(root)
        , m_maxDepth(maxDepth)
        , m_streamKey(streamKey)
        , m_sink(sink)
    {
    }

    bool null() { return scalar(json(nullptr)); }
    bool boolean(bool v) { return scalar(json(v)); }
    bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
    bool number_float(json::number_float_t v, const json::string_t &) { return scalar(json(v)); }
    bool string(json::string_t &v) { return scalar(json(std::move(v))); }
    bool binary(json::binary_t &v) { return scalar(json(json::binary_t(std::move(v)))); }

    bool start_object(std::size_t) { return open(json::value_t::object); }
    bool start_array(std::size_t)
    {
        // The streamed array: the value of the stream key in the top-level object.
        const bool streamed = m_sink && m_stack.size() == 1 && m_stack.front()->is_object()
            && m_path.front() && *m_path.front() == m_streamKey;
        if (!open(json::value_t::array))
            return false;
        if (streamed)
            m_streamed = m_stack.back();
        return true;
    }

    bool key(json::string_t &k)
    {
        json::object_t &object = m_stack.back()->get_ref<json::object_t &>();
        const auto [it, inserted] = object.emplace(k, nullptr);
        const std::size_t level = m_stack.size() - 1;
        if (!inserted) {
            m_path.resize(level + 1);
            m_path[level] = &k;
            throw ScenarioError(renderPath(m_path), "duplicate field");
        }
        m_path.resize(level + 1);
        m_path[level] = &it->first;
        m_member = &it->second;
        return true;
    }

    bool end_object() { return close(); }
    bool end_array()
    {
        if (m_stack.back() == m_streamed)
            m_streamed = nullptr;
        return close();
    }

    template<class Exception>
    bool parse_error(std::size_t, const std::string &, const Exception &ex)
    {
        throw ex;
    }

private:
    /// Places a new value in the container being built (or as the root); returns where.
    json *place(json &&value)
    {
        if (m_stack.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        json &parent = *m_stack.back();
        if (parent.is_array()) {
            json::array_t &array = parent.get_ref<json::array_t &>();
            array.push_back(std::move(value));
            return &array.back();
        }
        *m_member = std::move(value);
        return m_member;
    }

    bool scalar(json &&value)
    {
        place(std::move(value));
        handOver();
        return true;
    }

    bool open(json::value_t type)
    {
        // The new container is level m_stack.size() + 1 (the root is level 1).
        const std::size_t enclosing = m_stack.size();
        if (static_cast<long long>(enclosing) + 1 > m_maxDepth) {
            m_path.resize(enclosing);
            throw ScenarioError(renderPath(m_path),
                "JSON nests deeper than " + std::to_string(m_maxDepth) + " levels");
        }
        m_stack.push_back(place(json(type)));
        m_path.resize(enclosing + 1);
        m_path[enclosing] = nullptr; // "[]" for an array; an object's key replaces it
        return true;
    }

    bool close()
    {
        m_stack.pop_back();
        handOver();
        return true;
    }

    /// A value just completed in the streamed array goes to the sink and leaves the DOM.
    void handOver()
    {
        if (!m_streamed || m_stack.empty() || m_stack.back() != m_streamed)
            return;
        json::array_t &array = m_streamed->get_ref<json::array_t &>();
        json element = std::move(array.back());
        array.pop_back();
        (*m_sink)(m_streamIndex++, std::move(element));
    }

    json &m_root;
    int m_maxDepth;
    std::string_view m_streamKey;
    const JsonElementSink *m_sink;
    std::vector<json *> m_stack; ///< the containers being built, outermost first
    std::vector<const std::string *> m_path; ///< per level: the current key, null in arrays
    json *m_member = nullptr; ///< the object member a key just made
    json *m_streamed = nullptr;
    std::size_t m_streamIndex = 0;
};

nlohmann::json parseGuarded(
    const std::string &text, int maxDepth, std::string_view streamKey, const JsonElementSink *sink)
{
    using nlohmann::json;
    json root;
    GuardedDomBuilder builder(root, maxDepth, streamKey, sink);
    try {
        json::sax_parse(text, &builder);
    } catch (const json::exception &e) {
        throw ScenarioError("", "not valid JSON: " + parseErrorText(e.what()));
    }
    return root;
}

} // namespace

nlohmann::json parseJsonGuarded(const std::string &text, int maxDepth)
{
    return parseGuarded(text, maxDepth, {}, nullptr);
}

nlohmann::json parseJsonGuardedStreaming(
    const std::string &text, int maxDepth, std::string_view arrayKey, const JsonElementSink &sink)
{
    return parseGuarded(text, maxDepth, arrayKey, &sink);
}

std::int64_t jsonInteger(const nlohmann::json &value, const std::string &path, std::int64_t min,
                         std::int64_t max)
{
    std::int64_t v = 0;
    if (value.is_number_unsigned()) {
        const auto u = value.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(max))
            throw ScenarioError(path, std::to_string(u) + " exceeds the limit of "
                                          + std::to_string(max));
        v = static_cast<std::int64_t>(u);
    } else if (value.is_number_integer()) {
        v = value.get<std::int64_t>();
    } else if (value.is_number_float()) {
        // 8.0 is accepted (some writers emit every number as a float); 8.5 is not.
        const double d = value.get<double>();
        if (d != std::floor(d))
            throw ScenarioError(path, "expected an integer, got " + value.dump());
        if (d > static_cast<double>(max))
            throw ScenarioError(path, numberText(d) + " exceeds the limit of "
                                          + std::to_string(max));
        if (d < static_cast<double>(std::numeric_limits<std::int64_t>::min()))
            throw ScenarioError(path, "must be at least " + std::to_string(min) + ", got "
                                          + numberText(d));
        v = static_cast<std::int64_t>(d);
    } else {
        throw ScenarioError(path, "expected an integer, got " + jsonTypeName(value));
    }
    if (v < 0 && min >= 0)
        throw ScenarioError(path, "must not be negative, got " + std::to_string(v));
    if (v < min)
        throw ScenarioError(path, "must be at least " + std::to_string(min) + ", got "
                                      + std::to_string(v));
    if (v > max)
        throw ScenarioError(path, std::to_string(v) + " exceeds the limit of " + std::to_string(max));
    return v;
}

double jsonNumber(const nlohmann::json &value, const std::string &path, double min, double max,
                  LowerBound lower)
{
    if (!value.is_number())
        throw ScenarioError(path, "expected a number, got " + jsonTypeName(value));
    const double v = value.get<double>();
    if (!std::isfinite(v)) // only values built in code; JSON text cannot spell NaN or inf
        throw ScenarioError(path, std::string("expected a finite number, got ")
                                      + (std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"));
    if (v < 0 && min >= 0)
        throw ScenarioError(path, "must not be negative, got " + numberText(v));
    if (lower == LowerBound::Exclusive && v <= min)
        throw ScenarioError(path, "must be greater than " + numberText(min) + ", got "
                                      + numberText(v));
    if (v < min)
        throw ScenarioError(path, "must be at least " + numberText(min) + ", got " + numberText(v));
    if (v > max)
        throw ScenarioError(path, numberText(v) + " exceeds the limit of " + numberText(max));
    return v;
}

JsonFields::JsonFields(const nlohmann::json &json, std::string path,
                       std::initializer_list<std::string_view> known)
    : m_json(json)
    , m_path(std::move(path))
    , m_known(known)
{
    if (!m_json.is_object())
        throw ScenarioError(m_path, "expected an object, got " + jsonTypeName(m_json));
}

void JsonFields::rejectUnknown() const
{
    for (const auto &item : m_json.items()) {
        const std::string &key = item.key();
        if (std::find(m_known.begin(), m_known.end(), key) != m_known.end())
            continue;
        std::string reason = "unknown field";
        std::string_view best;
        std::size_t bestDistance = 3; // suggest only close matches: 1-2 edits
        for (std::string_view k : m_known) {
            const std::size_t d = editDistance(key, k);
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
            }
        }
        if (!best.empty())
            reason += " (did you mean '" + std::string(best) + "'?)";
        // The key may hold anything (control characters, megabytes): quote and cut it.
        std::string shown = dumpSafe(nlohmann::json(key));
        shown = shown.substr(1, shown.size() - 2);
        if (shown.size() > 60)
            shown = shown.substr(0, 60) + "...";
        throw ScenarioError(jsonFieldPath(m_path, shown), reason);
    }
}

const nlohmann::json *JsonFields::find(std::string_view key) const
{
    const auto it = m_json.find(key);
    return it == m_json.end() ? nullptr : &*it;
}

const nlohmann::json &JsonFields::required(std::string_view key) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        throw ScenarioError(fieldPath(key), "missing required field");
    return *v;
}

std::int64_t JsonFields::requiredInteger(std::string_view key, std::int64_t min,
                                         std::int64_t max) const
{
    return jsonInteger(required(key), fieldPath(key), min, max);
}

int JsonFields::integer(std::string_view key, int fallback, std::int64_t min,
                        std::int64_t max) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return fallback;
    max = std::min<std::int64_t>(max, std::numeric_limits<int>::max());
    return static_cast<int>(jsonInteger(*v, fieldPath(key), min, max));
}

double JsonFields::number(std::string_view key, double fallback, double min, double max,
                          LowerBound lower) const
{
    const nlohmann::json *v = find(key);
    return v ? jsonNumber(*v, fieldPath(key), min, max, lower) : fallback;
}

bool JsonFields::boolean(std::string_view key, bool fallback) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return fallback;
    if (!v->is_boolean())
        throw ScenarioError(fieldPath(key), "expected true or false, got " + jsonTypeName(*v));
    return v->get<bool>();
}

std::string JsonFields::string(std::string_view key, const std::string &fallback,
                               std::size_t maxLength, bool allowEmpty) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return fallback;
    std::string text = checkedString(*v, fieldPath(key));
    if (text.size() > maxLength)
        throw ScenarioError(fieldPath(key), "text of " + std::to_string(text.size())
                                                + " bytes exceeds the limit of "
                                                + std::to_string(maxLength));
    if (!allowEmpty && text.empty())
        throw ScenarioError(fieldPath(key), "must not be empty");
    return text;
}

const nlohmann::json *JsonFields::array(std::string_view key, std::size_t maxLength) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return nullptr;
    if (!v->is_array())
        throw ScenarioError(fieldPath(key), "expected an array, got " + jsonTypeName(*v));
    if (v->size() > maxLength)
        throw ScenarioError(fieldPath(key), std::to_string(v->size())
                                                + " entries exceed the limit of "
                                                + std::to_string(maxLength));
    return v;
}

std::string JsonFields::checkedString(const nlohmann::json &value, const std::string &path)
{
    if (!value.is_string())
        throw ScenarioError(path, "expected a string, got " + jsonTypeName(value));
    return value.get<std::string>();
}

void JsonFields::throwUnknownValue(const std::string &path, const nlohmann::json &value,
                                   const std::string &accepted)
{
    throw ScenarioError(path, "unknown value " + jsonQuote(value) + " (accepted: " + accepted + ")");
}

} // namespace railyard
