/** Bounds and name formats every owner configuration value shares. */

/** Every value, as the edge bounds it too (PRICING: the 128 KB of the spec). */
export const MAX_VALUE_LENGTH = 128 * 1024;
/** Model names and patterns: printable, no separators of the formats. */
export const MODEL_PATTERN = /^[A-Za-z0-9._:/@+*?[\]-]{1,256}$/;
export const MODEL_NAME = /^[A-Za-z0-9._:/@+-]{1,256}$/;
