/* Feature names and masking: the same on every arch. */
#include "cpu.h"
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	unsigned bit;
	const char *name;
} feature_names[] = {
	{MG_FEAT_SSE2, "sse2"},	      {MG_FEAT_AVX, "avx"},	      {MG_FEAT_AVX2, "avx2"},
	{MG_FEAT_AVX512F, "avx512f"}, {MG_FEAT_AVX512BW, "avx512bw"}, {MG_FEAT_ERMS, "erms"},
	{MG_FEAT_FSRM, "fsrm"},	      {MG_FEAT_SSE, "sse"},	      {MG_FEAT_ZVA64, "zva64"},
	{MG_FEAT_ZVA256, "zva256"},   {MG_FEAT_ZVA512, "zva512"},   {MG_FEAT_SVE, "sve"},
	{MG_FEAT_MOPS, "mops"},	      {MG_FEAT_SME, "sme"},	      {MG_FEAT_NEON, "neon"},
	{MG_FEAT_VFPD32, "vfpd32"},
	{MG_FEAT_SSE3, "sse3"},	      {MG_FEAT_SSSE3, "ssse3"},	      {MG_FEAT_SSE4_1, "sse4_1"},
	{MG_FEAT_SSE4_2, "sse4_2"},   {MG_FEAT_AVX512VL, "avx512vl"}, {MG_FEAT_AVX512DQ, "avx512dq"},
	{MG_FEAT_BMI1, "bmi1"},	      {MG_FEAT_BMI2, "bmi2"},	      {MG_FEAT_RTM, "rtm"},
	{MG_FEAT_MOVBE, "movbe"},     {MG_FEAT_LZCNT, "lzcnt"},	      {MG_FEAT_FSRS, "fsrs"},
	{MG_FEAT_V, "v"},	      {MG_FEAT_ZBA, "zba"},	      {MG_FEAT_ZBB, "zbb"},
	{MG_FEAT_ZBS, "zbs"},
};

#define FEATURE_COUNT (sizeof feature_names / sizeof feature_names[0])

static unsigned hidden;

unsigned mg_cpu_features(void)
{
	static unsigned detected;
	static int done;

	if (!done) {
		detected = mg_cpu_detect();
		done = 1;
	}
	return detected & ~hidden;
}

const char *mg_cpu_model(void)
{
	const char *model = getenv("MEMGATE_CPU_MODEL");

	return model && *model ? model : NULL;
}

void mg_cpu_hide(unsigned features)
{
	hidden |= features;
}

unsigned mg_cpu_missing(unsigned needs, char *out, unsigned size)
{
	/* A speed fact never keeps a variant from running (variant.h). */
	unsigned missing = needs & ~MG_FEAT_SPEED_ONLY & ~mg_cpu_features();

	if (missing)
		mg_feature_format(missing, out, size);
	return missing;
}

const char *mg_feature_name(unsigned feature)
{
	for (size_t i = 0; i < FEATURE_COUNT; i++)
		if (feature_names[i].bit == feature)
			return feature_names[i].name;
	return NULL;
}

static int parse_one(const char *name, size_t len, unsigned *out)
{
	for (size_t i = 0; i < FEATURE_COUNT; i++)
		if (strlen(feature_names[i].name) == len &&
		    strncmp(feature_names[i].name, name, len) == 0) {
			*out |= feature_names[i].bit;
			return 1;
		}
	return 0;
}

int mg_feature_parse(const char *list, unsigned *out, const char **bad)
{
	*out = 0;
	while (*list) {
		size_t len = strcspn(list, ",");
		if (len && !parse_one(list, len, out)) {
			*bad = list;
			return 0;
		}
		list += len + (list[len] == ',');
	}
	return 1;
}

void mg_feature_format(unsigned mask, char *out, unsigned size)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < FEATURE_COUNT && used < size; i++)
		if (mask & feature_names[i].bit)
			used += (size_t)snprintf(out + used, size - used, "%s%s", used ? "," : "",
						 feature_names[i].name);
}
