#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/// "fabric" + "servers" -> "fabric.servers"; an empty parent gives just the key.
std::string jsonFieldPath(std::string_view parent, std::string_view key);
/// "fabric.gpu_to_nic" + 3 -> "fabric.gpu_to_nic[3]".
std::string jsonElementPath(std::string_view array, std::size_t index);
/// The JSON type as a reader says it: "string", "boolean", "number", "object", "array", "null".
std::string jsonTypeName(const nlohmann::json &value);
/// A value quoted for a one-line message, cut after `maxChars` characters.
std::string jsonQuote(const nlohmann::json &value, std::size_t maxChars = 40);

/// Parses JSON text into a DOM, refusing (ScenarioError naming the key path) nesting deeper
/// than `maxDepth` containers and a key repeated in one object as the parser meets them, so a
/// hostile text never grows a deep tree. Syntax errors keep nlohmann's line and column.
/// Linear in the text: a SAX pass builds the DOM (nlohmann's callback parser is quadratic on
/// arrays of objects).
nlohmann::json parseJsonGuarded(const std::string &text, int maxDepth);

/// Receives one array element of parseJsonGuardedStreaming: its index and its DOM.
using JsonElementSink = std::function<void(std::size_t index, nlohmann::json &&element)>;

/// parseJsonGuarded, except that each element of the array at `arrayKey` of the top-level
/// object goes to `sink` as soon as it is complete and is not kept: the returned DOM holds an
/// empty array there. A reader of a record of a million rows thus checks one row at a time
/// and never holds the rows' DOM. The sink may throw (the parse stops there).
nlohmann::json parseJsonGuardedStreaming(
    const std::string &text, int maxDepth, std::string_view arrayKey, const JsonElementSink &sink);

/// An integer in [min, max] at `path`; ScenarioError for another type, a fraction, or a value
/// out of range (negative, below the minimum and over the limit each have their own message).
std::int64_t jsonInteger(const nlohmann::json &value, const std::string &path, std::int64_t min,
                         std::int64_t max);

/** Whether a number's lower bound may be reached (latency 0) or not (bandwidth must be > 0). */
enum class LowerBound { Inclusive, Exclusive };
/// A finite number in [min, max] (or (min, max]) at `path`.
double jsonNumber(const nlohmann::json &value, const std::string &path, double min, double max,
                  LowerBound lower = LowerBound::Inclusive);

/**
 * Reads one JSON object of a scenario file field by field and throws ScenarioError with the
 * exact field path ("fabric.nic_gbps") and reason at the first problem. The object declares
 * the keys it knows, so a misspelt key is an error ("unknown field", with a suggestion) instead
 * of a silently ignored setting. Absent optional fields return the caller's fallback.
 */
class JsonFields
{
public:
    /// Throws ScenarioError(path, "expected an object, got <type>") when `json` is no object.
    /// `json` must outlive the reader.
    JsonFields(const nlohmann::json &json, std::string path,
               std::initializer_list<std::string_view> known);

    /// Throws ScenarioError("<path>.<key>", "unknown field ...") for the first key not known.
    void rejectUnknown() const;

    const std::string &path() const { return m_path; }
    std::string fieldPath(std::string_view key) const { return jsonFieldPath(m_path, key); }
    bool has(std::string_view key) const { return find(key) != nullptr; }
    /// The value of `key`, or nullptr when absent.
    const nlohmann::json *find(std::string_view key) const;
    /// The value of `key`; throws "missing required field" when absent.
    const nlohmann::json &required(std::string_view key) const;

    std::int64_t requiredInteger(std::string_view key, std::int64_t min, std::int64_t max) const;
    int integer(std::string_view key, int fallback, std::int64_t min, std::int64_t max) const;
    double number(std::string_view key, double fallback, double min, double max,
                  LowerBound lower = LowerBound::Inclusive) const;
    bool boolean(std::string_view key, bool fallback) const;
    /// A string of at most `maxLength` bytes (empty allowed unless `allowEmpty` is false).
    std::string string(std::string_view key, const std::string &fallback, std::size_t maxLength,
                       bool allowEmpty = true) const;

    /// One of the names `nameOf` gives the `values`; the message lists them all when not.
    template<typename Enum, typename NameOf>
    Enum choice(std::string_view key, Enum fallback, std::initializer_list<Enum> values,
                NameOf nameOf) const
    {
        const nlohmann::json *v = find(key);
        if (!v)
            return fallback;
        const std::string text = checkedString(*v, fieldPath(key));
        std::string accepted;
        for (Enum e : values) {
            const std::string_view name = nameOf(e);
            if (name == text)
                return e;
            accepted += (accepted.empty() ? "" : ", ") + std::string(name);
        }
        throwUnknownValue(fieldPath(key), *v, accepted);
    }

    /// An array whose length is checked against `maxLength` before any element is read.
    const nlohmann::json *array(std::string_view key, std::size_t maxLength) const;

private:
    static std::string checkedString(const nlohmann::json &value, const std::string &path);
    [[noreturn]] static void throwUnknownValue(const std::string &path,
                                               const nlohmann::json &value,
                                               const std::string &accepted);

    const nlohmann::json &m_json;
    std::string m_path;
    std::vector<std::string_view> m_known;
};

} // namespace railyard
