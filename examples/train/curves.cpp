#include "curves.h"

#include <fmt/format.h>
#include <fmt/os.h>

#include <algorithm>
#include <cmath>

namespace plexus::train {

void write_csv(const std::filesystem::path& file, const std::vector<Curve>& curves) {
  auto out = fmt::output_file(file.string());
  out.print("epoch");
  for (const Curve& c : curves) out.print(",{}", c.name);
  out.print("\n");
  size_t n = curves.empty() ? 0 : curves[0].values.size();
  for (size_t e = 0; e < n; ++e) {
    out.print("{}", e + 1);
    for (const Curve& c : curves) out.print(",{:.8g}", c.values[e]);
    out.print("\n");
  }
}

void write_svg(const std::filesystem::path& file, const std::string& title,
               const std::vector<Curve>& curves) {
  const double W = 720, H = 440, left = 70, right = 20, top = 40, bottom = 50;
  double lo = INFINITY, hi = -INFINITY;
  size_t n = 0;
  for (const Curve& c : curves) {
    n = std::max(n, c.values.size());
    for (double v : c.values) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(hi > lo)) hi = lo + 1;
  lo = std::min(lo, 0.0);
  auto x = [&](size_t e) { return left + (W - left - right) * (n > 1 ? double(e) / double(n - 1) : 0); };
  auto y = [&](double v) { return top + (H - top - bottom) * (1 - (v - lo) / (hi - lo)); };
  auto out = fmt::output_file(file.string());
  out.print(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>
<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/>
<text x="{}" y="{}" text-anchor="middle">epoch</text>
<text x="16" y="{}" transform="rotate(-90 16 {})" text-anchor="middle">loss (MSE)</text>
)svg",
            W, H, W / 2, title, left, top, left, H - bottom, left, H - bottom, W - right,
            H - bottom, (W + left) / 2, H - 10, (H - bottom + top) / 2, (H - bottom + top) / 2);
  for (int t = 0; t <= 5; ++t) {
    double v = lo + (hi - lo) * t / 5;
    out.print(R"svg(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#ddd"/><text x="{}" y="{:.1f}" text-anchor="end">{:.3g}</text>
)svg",
              left, y(v), W - right, y(v), left - 6, y(v) + 4, v);
  }
  for (size_t t = 0; t < 5 && n > 1; ++t) {
    size_t e = t * (n - 1) / 4;
    out.print(R"svg(<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>
)svg",
              x(e), H - bottom + 18, e + 1);
  }
  const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
  for (size_t i = 0; i < curves.size(); ++i) {
    std::string points;
    for (size_t e = 0; e < curves[i].values.size(); ++e)
      points += fmt::format("{:.1f},{:.1f} ", x(e), y(curves[i].values[e]));
    const char* color = colors[i % 4];
    out.print(R"svg(<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>
<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"/><text x="{}" y="{}">{}</text>
)svg",
              color, points, W - 190, top + 14 + 18 * double(i), W - 165, top + 14 + 18 * double(i),
              color, W - 158, top + 18 + 18 * double(i), curves[i].name);
  }
  out.print("</svg>\n");
}

}  // namespace plexus::train
