// A strict reader of XML element trees (W3C XML 1.0, the subset NCCL's topology files use).
// Iterative, so no input can exhaust the stack; every refusal names the file and line.
#include "io/xmlelements.h"

#include "base/scenarioerror.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <unordered_set>

namespace railyard {

const std::string *XmlElement::attribute(std::string_view key) const
{
    for (const auto &[k, v] : attributes)
        if (k == key)
            return &v;
    return nullptr;
}

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
/// Caps that keep memory and time linear and small: NCCL's dump of an 8-GPU server has 85
/// elements (samples/dgx-h100-topology.xml) and at most a dozen attributes on one element.
constexpr std::size_t kMaxElements = 1 << 16;
constexpr std::size_t kMaxAttributes = 256;

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// XML 1.0 NameStartChar/NameChar, restricted to ASCII plus any byte of a UTF-8 sequence.
bool isNameStart(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u == ':' || u >= 0x80;
}

bool isNameChar(char c)
{
    return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/// `code` as UTF-8 (XML's Char production: no NUL, no surrogates, at most U+10FFFF).
bool appendUtf8(std::string &out, std::uint32_t code)
{
    if (code == 0 || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF)
        return false;
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
    return true;
}

class Reader
{
public:
    Reader(std::string_view text, const std::string &file, int maxDepth)
        : m_text(text)
        , m_file(file)
        , m_maxDepth(maxDepth)
    {
    }

    XmlElement run()
    {
        if (m_text.substr(0, kUtf8Bom.size()) == kUtf8Bom)
            m_pos = kUtf8Bom.size();
        std::vector<XmlElement> open;
        bool haveRoot = false;
        XmlElement root;
        while (m_pos < m_text.size()) {
            const std::size_t lt = m_text.find('<', m_pos);
            const std::string_view text = m_text.substr(m_pos, lt - m_pos);
            if (open.empty() && !std::all_of(text.begin(), text.end(), isSpace)) {
                moveTo(m_pos
                    + static_cast<std::size_t>(
                        std::find_if_not(text.begin(), text.end(), isSpace) - text.begin()));
                fail(haveRoot ? "text after the root element" : "text before the root element");
            }
            if (lt == std::string_view::npos) {
                moveTo(m_text.size());
                break;
            }
            moveTo(lt);
            const std::string_view rest = m_text.substr(m_pos);
            if (rest.substr(0, 4) == "<!--") {
                skipPast("-->", "a comment is not closed (no -->)");
            } else if (rest.substr(0, 2) == "<?") {
                skipPast("?>", "a processing instruction is not closed (no ?>)");
            } else if (rest.substr(0, 9) == "<![CDATA[") {
                if (open.empty())
                    fail("CDATA outside the root element");
                skipPast("]]>", "a CDATA section is not closed (no ]]>)");
            } else if (rest.substr(0, 2) == "<!") {
                fail("a DOCTYPE or other declaration: NCCL's topology files have none");
            } else if (rest.substr(0, 2) == "</") {
                moveTo(m_pos + 2);
                const std::string name = readName("an end tag");
                skipSpace();
                expect('>', "end tag </" + name + " is not closed with >");
                if (open.empty())
                    fail("end tag </" + name + "> closes no open element");
                if (open.back().name != name)
                    fail("end tag </" + name + "> does not match <" + open.back().name
                        + "> opened at line " + std::to_string(open.back().line));
                close(open, root);
            } else {
                if (open.empty() && haveRoot)
                    fail("a second root element; an XML document has exactly one");
                if (++m_elements > kMaxElements)
                    fail("more than " + std::to_string(kMaxElements)
                        + " elements; NCCL's topology files have a few hundred");
                XmlElement e;
                e.line = m_line;
                moveTo(m_pos + 1);
                e.name = readName("a start tag");
                const bool empty = readAttributes(e);
                if (open.empty())
                    haveRoot = true;
                if (static_cast<int>(open.size()) + 1 > m_maxDepth)
                    throw ScenarioError(where(),
                        "elements nested more than " + std::to_string(m_maxDepth)
                            + " deep; NCCL's topology files are far shallower");
                open.push_back(std::move(e));
                if (empty)
                    close(open, root);
            }
        }
        if (!open.empty())
            throw ScenarioError(where(),
                "not XML: <" + open.back().name + "> opened at line "
                    + std::to_string(open.back().line) + " is not closed");
        if (!haveRoot)
            throw ScenarioError(where(), "not XML: no element");
        return root;
    }

private:
    std::string where() const { return m_file + ":" + std::to_string(m_line); }

    [[noreturn]] void fail(const std::string &reason) const
    {
        throw ScenarioError(where(), "not XML: " + reason);
    }

    /// Advances to `to`, counting the lines passed.
    void moveTo(std::size_t to)
    {
        to = std::min(to, m_text.size());
        m_line += static_cast<int>(std::count(m_text.begin() + static_cast<std::ptrdiff_t>(m_pos),
            m_text.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
        m_pos = to;
    }

    void skipPast(std::string_view end, const char *unclosed)
    {
        const std::size_t at = m_text.find(end, m_pos);
        if (at == std::string_view::npos)
            fail(unclosed);
        moveTo(at + end.size());
    }

    void skipSpace()
    {
        std::size_t p = m_pos;
        while (p < m_text.size() && isSpace(m_text[p]))
            ++p;
        moveTo(p);
    }

    void expect(char c, const std::string &otherwise)
    {
        if (m_pos >= m_text.size() || m_text[m_pos] != c)
            fail(otherwise);
        moveTo(m_pos + 1);
    }

    std::string readName(const char *in)
    {
        if (m_pos >= m_text.size() || !isNameStart(m_text[m_pos]))
            fail(std::string("expected a name in ") + in);
        std::size_t end = m_pos;
        while (end < m_text.size() && isNameChar(m_text[end]))
            ++end;
        std::string name(m_text.substr(m_pos, end - m_pos));
        moveTo(end);
        return name;
    }

    /// The attributes up to > or />; true for an empty-element tag.
    bool readAttributes(XmlElement &e)
    {
        std::unordered_set<std::string> seen;
        while (true) {
            const std::size_t before = m_pos;
            skipSpace();
            if (m_pos >= m_text.size())
                fail("<" + e.name + " is not closed with >");
            if (m_text[m_pos] == '>') {
                moveTo(m_pos + 1);
                return false;
            }
            if (m_text.substr(m_pos, 2) == "/>") {
                moveTo(m_pos + 2);
                return true;
            }
            if (m_pos == before)
                fail("expected white space, > or /> in <" + e.name + ">");
            const std::string key = readName("an attribute");
            skipSpace();
            expect('=', "attribute '" + key + "' has no =");
            skipSpace();
            if (m_pos >= m_text.size() || (m_text[m_pos] != '"' && m_text[m_pos] != '\''))
                fail("attribute '" + key + "' has no quoted value");
            const char quote = m_text[m_pos];
            const std::size_t end = m_text.find(quote, m_pos + 1);
            if (end == std::string_view::npos)
                fail("the value of attribute '" + key + "' is not closed");
            std::string value = decode(m_text.substr(m_pos + 1, end - m_pos - 1), key);
            if (!seen.insert(key).second)
                fail("attribute '" + key + "' appears twice in <" + e.name + ">");
            if (seen.size() > kMaxAttributes)
                fail("more than " + std::to_string(kMaxAttributes) + " attributes in <" + e.name
                    + ">");
            e.attributes.emplace_back(key, std::move(value));
            moveTo(end + 1);
        }
    }

    /// An attribute value with its entity and character references replaced.
    std::string decode(std::string_view raw, const std::string &key) const
    {
        std::string out;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] == '<')
                fail("attribute '" + key + "' holds a <");
            if (raw[i] != '&') {
                out += raw[i];
                continue;
            }
            const std::size_t semi = raw.find(';', i);
            if (semi == std::string_view::npos || semi - i > 12)
                fail("attribute '" + key + "' holds an & that starts no reference");
            const std::string_view ref = raw.substr(i + 1, semi - i - 1);
            static constexpr std::pair<std::string_view, char> kNamed[] = { { "lt", '<' },
                { "gt", '>' }, { "amp", '&' }, { "quot", '"' }, { "apos", '\'' } };
            const auto named = std::find_if(std::begin(kNamed), std::end(kNamed),
                [&](const auto &n) { return n.first == ref; });
            if (named != std::end(kNamed)) {
                out += named->second;
            } else {
                const bool hex = ref.substr(0, 2) == "#x";
                const std::string_view digits = ref.substr(hex ? 2 : 1);
                std::uint32_t code = 0;
                const auto [ptr, ec] = std::from_chars(
                    digits.data(), digits.data() + digits.size(), code, hex ? 16 : 10);
                if (ref.empty() || ref.front() != '#' || digits.empty() || ec != std::errc()
                    || ptr != digits.data() + digits.size() || !appendUtf8(out, code))
                    fail("attribute '" + key + "': &" + std::string(ref)
                        + "; is no predefined entity or character reference");
            }
            i = semi;
        }
        return out;
    }

    void close(std::vector<XmlElement> &open, XmlElement &root)
    {
        XmlElement done = std::move(open.back());
        open.pop_back();
        if (open.empty())
            root = std::move(done);
        else
            open.back().children.push_back(std::move(done));
    }

    std::string_view m_text;
    const std::string &m_file;
    int m_maxDepth;
    std::size_t m_pos = 0;
    int m_line = 1;
    std::size_t m_elements = 0;
};

} // namespace

XmlElement parseXmlElements(std::string_view text, const std::string &file, int maxDepth)
{
    return Reader(text, file, maxDepth).run();
}

} // namespace railyard
