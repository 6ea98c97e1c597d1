// Vega and Vega-Lite in one module: dist/charts.cjs when built (Vega ships ES modules only, and the bundles load
// through vm.Script, which has no dynamic import), the packages themselves when run from the sources.
export * as vega from "vega";
export * as vegaLite from "vega-lite";
