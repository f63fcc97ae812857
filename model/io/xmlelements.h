#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railyard {

/** One element of a small XML document: its name, attributes in file order, children, line. */
struct XmlElement
{
    std::string name;
    int line = 0; ///< of its start tag, from 1
    std::vector<std::pair<std::string, std::string>> attributes; ///< entities decoded
    std::vector<XmlElement> children;

    /// The attribute's value, or nullptr when the element has none of that name.
    const std::string *attribute(std::string_view key) const;
};

/**
 * Parses the element tree of an XML document strictly, for the files NCCL writes: exactly one
 * root element, every end tag naming the element it closes, no attribute twice in one tag,
 * quoted attribute values with only XML's predefined entities and character references,
 * elements nested at most `maxDepth` deep, at most 65,536 elements and 256 attributes on one.
 * Comments, processing instructions (the XML declaration), CDATA and text are skipped; a leading
 * UTF-8 byte order mark too. A DOCTYPE is refused (NCCL writes none, and its entities are not
 * expanded). Throws ScenarioError naming `file:line` and starting its reason with "not XML: " for
 * anything else.
 */
XmlElement parseXmlElements(std::string_view text, const std::string &file, int maxDepth);

} // namespace railyard
