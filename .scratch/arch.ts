import { archive } from "../bench/generate.js"
archive("/tmp/arch1m.jsonl", 1_000_000)
archive("/tmp/arch100k.jsonl", 100_000)
