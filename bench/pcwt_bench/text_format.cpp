// text_format.cpp - see text_format.hpp.
#include "text_format.hpp"

#include <cmath>
#include <cstdio>

namespace pcwtbench {

std::string xml_escape(const std::string &s)
{
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&#39;"; break;
        default:
            // Control characters are not allowed in XML 1.0: show them as '?'.
            if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
                o += '?';
            else
                o += c;
        }
    }
    return o;
}

std::string json_string(const std::string &s)
{
    std::string o = "\"";
    for (char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (u < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", u);
            o += b;
        } else {
            o += c;
        }
    }
    return o + "\"";
}

std::string csv_field(const std::string &s)
{
    if (s.find_first_of(",\"\r\n") == std::string::npos)
        return s;
    std::string o = "\"";
    for (char c : s) {
        if (c == '"')
            o += '"';
        o += c;
    }
    return o + "\"";
}

std::string fixed(double v, int decimals)
{
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

std::string json_number(double v)
{
    if (!std::isfinite(v))
        return "null";
    char b[64];
    std::snprintf(b, sizeof b, "%.10g", v);
    return b;
}

} // namespace pcwtbench
