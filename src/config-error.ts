/** A configuration that cannot run: the message names the variable and what is wrong with it. */
export class ConfigError extends Error {}
