// Loss curves of a training run written for a person (an SVG line chart) and
// for a program (CSV).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace plexus::train {

struct Curve {
  std::string name;
  std::vector<double> values;  // one per epoch
};

// epoch,<name>,<name>... one row per epoch.
void write_csv(const std::filesystem::path& file, const std::vector<Curve>& curves);
// A line chart of the curves over epochs, with axes, ticks and a legend.
void write_svg(const std::filesystem::path& file, const std::string& title,
               const std::vector<Curve>& curves);

}  // namespace plexus::train
