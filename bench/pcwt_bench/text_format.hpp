// text_format.hpp - escaping for HTML/XML, JSON and CSV, and number formatting.
#pragma once

#include <string>

namespace pcwtbench {

std::string xml_escape(const std::string &s);   // & < > " ' (HTML text, attributes and SVG)
std::string json_string(const std::string &s);  // a quoted JSON string
std::string csv_field(const std::string &s);    // quoted when it holds , " or a line break
std::string fixed(double v, int decimals);      // printf("%.*f")
std::string json_number(double v);              // finite number, or null

} // namespace pcwtbench
