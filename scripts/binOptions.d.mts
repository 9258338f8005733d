import type { BuildOptions } from "esbuild"

/** The bin's esbuild options, but for where it is written. */
export declare const binOptions: BuildOptions
