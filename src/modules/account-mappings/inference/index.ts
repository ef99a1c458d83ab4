export { loadInferenceContext, engagementGroups } from "./context.js";
export { inferMappings, type DiscoveredAccount, type Inference, type InferenceContext, type InferredStatus, type PriorMapping } from "./infer.js";
export { indexCandidates, type CandidateGroup, type CandidateIndex } from "./groups.js";
