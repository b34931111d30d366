/*
 * report_assets.h — what `hprofan report` writes besides the data: its
 * page template (src/cli/report.html) and the charting library it inlines
 * (Apache ECharts' dist/echarts.min.js), both built into the binary by
 * scripts/embed-assets (the Makefile's $(BUILD)/gen/report_assets.c), so
 * the installed hprofan reads no other file.  The page's
 * Content-Security-Policy already holds the SHA-256 of its inline script,
 * of its style and of the library (embed-assets works them out), so the
 * page must be written with those elements unchanged.  Each array is
 * followed by a NUL that its _len does not count.
 */
#ifndef HP_CLI_REPORT_ASSETS_H
#define HP_CLI_REPORT_ASSETS_H

#include <stddef.h>

extern const unsigned char hp_report_page[];
extern const size_t hp_report_page_len;
extern const unsigned char hp_report_lib[];
extern const size_t hp_report_lib_len;
extern const char hp_report_lib_name[];       /* "Apache ECharts" */
extern const char hp_report_lib_version[];    /* from its package.json */
extern const char hp_report_lib_license[];    /* "Apache-2.0" */

#endif
