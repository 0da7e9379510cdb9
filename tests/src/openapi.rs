//! The admin API's contract: `docs/admin-openapi.yaml`, read with a YAML library (yaml_serde),
//! checked as an OpenAPI 3.1 document ([`Contract::check_document`]), and every answer an
//! admin test receives validated against the schema of its path, method and status with a JSON
//! Schema 2020-12 validator (the `jsonschema` crate), `$ref`s resolved within the document
//! ([`Contract::check_answer`]). A change to the server's answers that the file does not make
//! too fails the test that met it.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// Where the document is, from this crate.
pub const OPENAPI_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/admin-openapi.yaml");

/// The keywords a Schema Object may use in OpenAPI 3.1: JSON Schema 2020-12's vocabularies
/// (core, applicator, unevaluated, validation, meta-data, format, content) and OpenAPI's own.
/// Anything else is a mistake (a stray key from a YAML slip, OpenAPI 3.0's `nullable`).
const SCHEMA_KEYWORDS: &[&str] = &[
    // core
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    // applicator
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    // unevaluated
    "unevaluatedItems",
    "unevaluatedProperties",
    // validation
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    // meta-data, format, content
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    // OpenAPI's vocabulary
    "discriminator",
    "xml",
    "externalDocs",
    "example",
];

/// Keywords whose value is one schema.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["prefixItems", "allOf", "anyOf", "oneOf"];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
];

/// The fields each OpenAPI object used here may have (OpenAPI 3.1.0, section 4.8); `x-`
/// extensions aside.
const OBJECT_FIELDS: &[(&str, &[&str])] = &[
    (
        "document",
        &[
            "openapi",
            "info",
            "jsonSchemaDialect",
            "servers",
            "paths",
            "webhooks",
            "components",
            "security",
            "tags",
            "externalDocs",
        ],
    ),
    (
        "info",
        &[
            "title",
            "summary",
            "description",
            "termsOfService",
            "contact",
            "license",
            "version",
        ],
    ),
    ("server", &["url", "description", "variables"]),
    (
        "components",
        &[
            "schemas",
            "responses",
            "parameters",
            "examples",
            "requestBodies",
            "headers",
            "securitySchemes",
            "links",
            "callbacks",
            "pathItems",
        ],
    ),
    (
        "path item",
        &[
            "$ref",
            "summary",
            "description",
            "get",
            "put",
            "post",
            "delete",
            "options",
            "head",
            "patch",
            "trace",
            "servers",
            "parameters",
        ],
    ),
    (
        "operation",
        &[
            "tags",
            "summary",
            "description",
            "externalDocs",
            "operationId",
            "parameters",
            "requestBody",
            "responses",
            "callbacks",
            "deprecated",
            "security",
            "servers",
        ],
    ),
    (
        "parameter",
        &[
            "name",
            "in",
            "description",
            "required",
            "deprecated",
            "allowEmptyValue",
            "style",
            "explode",
            "allowReserved",
            "schema",
            "example",
            "examples",
            "content",
        ],
    ),
    ("request body", &["description", "content", "required"]),
    ("media type", &["schema", "example", "examples", "encoding"]),
    ("response", &["description", "headers", "content", "links"]),
    (
        "header",
        &[
            "description",
            "required",
            "deprecated",
            "allowEmptyValue",
            "style",
            "explode",
            "allowReserved",
            "schema",
            "example",
            "examples",
            "content",
        ],
    ),
    (
        "security scheme",
        &[
            "type",
            "description",
            "name",
            "in",
            "scheme",
            "bearerFormat",
            "flows",
            "openIdConnectUrl",
        ],
    ),
    ("reference", &["$ref", "summary", "description"]),
];

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The document, and the validators compiled so far (by the schema's place in it).
pub struct Contract {
    doc: Value,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// The contract in `docs/admin-openapi.yaml`, loaded once; a file that does not load fails
/// the test at hand.
pub fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        let text = std::fs::read_to_string(OPENAPI_FILE)
            .unwrap_or_else(|e| panic!("reading {OPENAPI_FILE}: {e}"));
        Contract::from_yaml(&text).unwrap_or_else(|e| panic!("{OPENAPI_FILE}: {e}"))
    })
}

/// Follows `$ref`s (`#/...` JSON pointers into `doc`) from `value` until an object without
/// one; the object and the pointer where it was found (`at` unless a `$ref` was followed).
fn resolve<'a>(doc: &'a Value, value: &'a Value, at: &str) -> Result<(&'a Value, String), String> {
    let (mut value, mut at) = (value, at.to_string());
    for _ in 0..16 {
        let Some(r) = value.get("$ref").and_then(Value::as_str) else {
            return Ok((value, at));
        };
        let pointer = r
            .strip_prefix('#')
            .ok_or_else(|| format!("{at}: only references within the document are used: {r}"))?;
        value = doc
            .pointer(pointer)
            .ok_or_else(|| format!("{at}: `$ref: {r}` names nothing"))?;
        at = pointer.to_string();
    }
    Err(format!("{at}: a loop of references"))
}

/// A JSON pointer's token for `key`.
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl Contract {
    /// The document from its YAML text.
    pub fn from_yaml(text: &str) -> Result<Contract, String> {
        let doc: Value = yaml_serde::from_str(text).map_err(|e| format!("not valid YAML: {e}"))?;
        Ok(Contract {
            doc,
            validators: Mutex::default(),
        })
    }

    /// The document as JSON.
    pub fn document(&self) -> &Value {
        &self.doc
    }

    /// Checks the document as an OpenAPI 3.1 document: its objects have only their fields,
    /// every `$ref` names something, path templates have their parameters, operation ids are
    /// unique, every schema uses only 2020-12's and OpenAPI's keywords and compiles (checked
    /// against the 2020-12 meta-schema), and every example is valid against its schema. Every
    /// fault found, in document order.
    pub fn check_document(&self) -> Result<(), Vec<String>> {
        let mut faults = Vec::new();
        let doc = &self.doc;
        match doc.get("openapi").and_then(Value::as_str) {
            Some(v) if v.starts_with("3.1.") => {}
            other => faults.push(format!("`openapi` is {other:?}, not 3.1.x")),
        }
        self.fields(doc, "document", "", &mut faults);
        match doc.get("info") {
            Some(info) => {
                self.fields(info, "info", "/info", &mut faults);
                for key in ["title", "version"] {
                    if !info.get(key).is_some_and(Value::is_string) {
                        faults.push(format!("/info: `{key}` (a string) is required"));
                    }
                }
            }
            None => faults.push("`info` is required".into()),
        }
        for (i, s) in doc["servers"].as_array().into_iter().flatten().enumerate() {
            self.fields(s, "server", &format!("/servers/{i}"), &mut faults);
        }
        self.references(doc, "", &mut faults);
        if let Some(c) = doc.get("components") {
            self.fields(c, "components", "/components", &mut faults);
            for (name, s) in c["securitySchemes"].as_object().into_iter().flatten() {
                self.fields(
                    s,
                    "security scheme",
                    &format!("/components/securitySchemes/{name}"),
                    &mut faults,
                );
            }
            for (name, s) in c["schemas"].as_object().into_iter().flatten() {
                self.schema(s, &format!("/components/schemas/{name}"), &mut faults);
            }
            for (name, p) in c["parameters"].as_object().into_iter().flatten() {
                self.parameter(
                    p,
                    &format!("/components/parameters/{}", token(name)),
                    &mut faults,
                );
            }
            for (name, r) in c["responses"].as_object().into_iter().flatten() {
                self.response(
                    r,
                    &format!("/components/responses/{}", token(name)),
                    &mut faults,
                );
            }
        }
        let mut operation_ids = BTreeSet::new();
        let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
            faults.push("`paths` is required".into());
            return Err(faults);
        };
        for (path, item) in paths {
            let at = format!("/paths/{}", token(path));
            if !path.starts_with('/') {
                faults.push(format!("{at}: a path starts with `/`"));
            }
            self.fields(item, "path item", &at, &mut faults);
            let templated: BTreeSet<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
                .collect();
            let mut shared = BTreeSet::new();
            for (i, p) in item["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                let at = format!("{at}/parameters/{i}");
                if let Some(name) = self.parameter(p, &at, &mut faults) {
                    shared.insert(name);
                }
            }
            for method in METHODS {
                let Some(op) = item.get(*method) else {
                    continue;
                };
                let at = format!("{at}/{method}");
                self.fields(op, "operation", &at, &mut faults);
                if let Some(id) = op.get("operationId").and_then(Value::as_str) {
                    if !operation_ids.insert(id.to_string()) {
                        faults.push(format!("{at}: operationId `{id}` is not unique"));
                    }
                }
                let mut declared = shared.clone();
                for (i, p) in op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    if let Some(name) =
                        self.parameter(p, &format!("{at}/parameters/{i}"), &mut faults)
                    {
                        declared.insert(name);
                    }
                }
                for t in &templated {
                    if !declared.contains(*t) {
                        faults.push(format!(
                            "{at}: the path's `{{{t}}}` has no `in: path` parameter"
                        ));
                    }
                }
                if let Some(body) = op.get("requestBody") {
                    let at = format!("{at}/requestBody");
                    match resolve(doc, body, &at) {
                        Ok((body, at)) => {
                            self.fields(body, "request body", &at, &mut faults);
                            self.content(body, &at, &mut faults);
                        }
                        Err(e) => faults.push(e),
                    }
                }
                match op.get("responses").and_then(Value::as_object) {
                    Some(responses) if !responses.is_empty() => {
                        for (status, r) in responses {
                            let ok = status == "default"
                                || (status.len() == 3
                                    && (status.chars().all(|c| c.is_ascii_digit())
                                        || status[1..] == *"XX"));
                            if !ok {
                                faults.push(format!("{at}/responses: `{status}` is not a status"));
                            }
                            self.response(r, &format!("{at}/responses/{status}"), &mut faults);
                        }
                    }
                    _ => faults.push(format!("{at}: `responses` is required")),
                }
            }
        }
        if faults.is_empty() {
            Ok(())
        } else {
            Err(faults)
        }
    }

    /// Faults for the keys of `value` (an OpenAPI object of `kind`) that it may not have.
    fn fields(&self, value: &Value, kind: &str, at: &str, faults: &mut Vec<String>) {
        let Some(map) = value.as_object() else {
            faults.push(format!("{at}: a {kind} object is a mapping"));
            return;
        };
        let kind = if map.contains_key("$ref") && kind != "path item" {
            "reference"
        } else {
            kind
        };
        let allowed = OBJECT_FIELDS
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(&[][..], |(_, f)| *f);
        for key in map.keys() {
            if !allowed.contains(&key.as_str()) && !key.starts_with("x-") {
                faults.push(format!("{at}: a {kind} object has no field `{key}`"));
            }
        }
    }

    /// Every `$ref` below `value` names something in the document.
    fn references(&self, value: &Value, at: &str, faults: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref") {
                    match r.as_str() {
                        Some(r) => {
                            if let Err(e) = resolve(&self.doc, value, at) {
                                faults.push(e);
                            } else if !r.starts_with("#/") {
                                faults
                                    .push(format!("{at}: `$ref: {r}` is not within the document"));
                            }
                        }
                        None => faults.push(format!("{at}: `$ref` is a string")),
                    }
                }
                for (k, v) in map {
                    self.references(v, &format!("{at}/{}", token(k)), faults);
                }
            }
            Value::Array(list) => {
                for (i, v) in list.iter().enumerate() {
                    self.references(v, &format!("{at}/{i}"), faults);
                }
            }
            _ => {}
        }
    }

    /// A parameter (or its reference): its fields, a schema; its name if it is `in: path`.
    fn parameter(&self, p: &Value, at: &str, faults: &mut Vec<String>) -> Option<String> {
        let (p, at) = match resolve(&self.doc, p, at) {
            Ok(x) => x,
            Err(e) => {
                faults.push(e);
                return None;
            }
        };
        self.fields(p, "parameter", &at, faults);
        let name = p.get("name").and_then(Value::as_str);
        let place = p.get("in").and_then(Value::as_str);
        if name.is_none() || !matches!(place, Some("path" | "query" | "header" | "cookie")) {
            faults.push(format!(
                "{at}: a parameter has a `name` and an `in` of path, query, header or cookie"
            ));
        }
        if place == Some("path") && p.get("required") != Some(&Value::Bool(true)) {
            faults.push(format!("{at}: a path parameter is `required: true`"));
        }
        if let Some(s) = p.get("schema") {
            self.schema(s, &format!("{at}/schema"), faults);
        }
        (place == Some("path")).then(|| name.unwrap_or_default().to_string())
    }

    /// A response (or its reference): its fields, a description, its headers and content.
    fn response(&self, r: &Value, at: &str, faults: &mut Vec<String>) {
        let (r, at) = match resolve(&self.doc, r, at) {
            Ok(x) => x,
            Err(e) => return faults.push(e),
        };
        self.fields(r, "response", &at, faults);
        if !r.get("description").is_some_and(Value::is_string) {
            faults.push(format!("{at}: a response has a `description`"));
        }
        for (name, h) in r["headers"].as_object().into_iter().flatten() {
            let at = format!("{at}/headers/{}", token(name));
            match resolve(&self.doc, h, &at) {
                Ok((h, at)) => {
                    self.fields(h, "header", &at, faults);
                    if let Some(s) = h.get("schema") {
                        self.schema(s, &format!("{at}/schema"), faults);
                    }
                }
                Err(e) => faults.push(e),
            }
        }
        self.content(r, &at, faults);
    }

    /// The media types of a request body or response: fields, schema, examples.
    fn content(&self, holder: &Value, at: &str, faults: &mut Vec<String>) {
        for (media, m) in holder["content"].as_object().into_iter().flatten() {
            let at = format!("{at}/content/{}", token(media));
            self.fields(m, "media type", &at, faults);
            let Some(schema) = m.get("schema") else {
                continue;
            };
            self.schema(schema, &format!("{at}/schema"), faults);
            if let Some(example) = m.get("example") {
                match self.validator(schema) {
                    Ok(v) => {
                        for e in v.iter_errors(example) {
                            faults.push(format!("{at}/example: {e} (at {})", e.instance_path()));
                        }
                    }
                    Err(e) => faults.push(format!("{at}/schema: {e}")),
                }
            }
        }
    }

    /// A schema: only known keywords (all the way down), and it compiles.
    fn schema(&self, s: &Value, at: &str, faults: &mut Vec<String>) {
        self.keywords(s, at, faults);
        if let Err(e) = self.validator(s) {
            faults.push(format!("{at}: not a valid JSON Schema 2020-12 schema: {e}"));
        }
    }

    fn keywords(&self, s: &Value, at: &str, faults: &mut Vec<String>) {
        let Some(map) = s.as_object() else {
            if !s.is_boolean() {
                faults.push(format!("{at}: a schema is a mapping or a boolean"));
            }
            return;
        };
        for (k, v) in map {
            let here = format!("{at}/{}", token(k));
            if k == "nullable" {
                faults.push(format!(
                    "{here}: OpenAPI 3.1 has no `nullable`: say `type: [T, \"null\"]`"
                ));
            } else if !SCHEMA_KEYWORDS.contains(&k.as_str()) && !k.starts_with("x-") {
                faults.push(format!("{here}: `{k}` is no schema keyword (a stray key?)"));
            }
            if ONE_SCHEMA.contains(&k.as_str()) {
                self.keywords(v, &here, faults);
            } else if SCHEMA_LISTS.contains(&k.as_str()) {
                for (i, x) in v.as_array().into_iter().flatten().enumerate() {
                    self.keywords(x, &format!("{here}/{i}"), faults);
                }
            } else if SCHEMA_MAPS.contains(&k.as_str()) {
                for (name, x) in v.as_object().into_iter().flatten() {
                    self.keywords(x, &format!("{here}/{}", token(name)), faults);
                }
            }
        }
    }

    /// A validator for `schema`, a schema of the document: compiled as the root of a 2020-12
    /// schema that also holds the document's `components`, so `#/components/...` references
    /// resolve as they do in the document.
    fn validator(&self, schema: &Value) -> Result<Arc<jsonschema::Validator>, String> {
        let key = schema.to_string();
        let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = cache.get(&key) {
            return Ok(v.clone());
        }
        let mut root = Map::new();
        root.insert(
            "$schema".into(),
            Value::String("https://json-schema.org/draft/2020-12/schema".into()),
        );
        root.insert("allOf".into(), Value::Array(vec![schema.clone()]));
        if let Some(c) = self.doc.get("components") {
            root.insert("components".into(), c.clone());
        }
        let v = Arc::new(
            jsonschema::draft202012::new(&Value::Object(root)).map_err(|e| e.to_string())?,
        );
        cache.insert(key, v.clone());
        Ok(v)
    }

    /// The documented response for `method` on `path` answering `status`: the Response
    /// Object and where it is. A path the document does not list is documented as
    /// `components/responses/NotFound`, a method a listed path does not have as
    /// `components/responses/MethodNotAllowed`; 401 and 403 may answer any request.
    fn documented(
        &self,
        method: &str,
        path: &str,
        status: u16,
    ) -> Result<(&Value, String), String> {
        let doc = &self.doc;
        let path = path.split('?').next().unwrap_or(path);
        let components = |name: &str| {
            let at = format!("/components/responses/{name}");
            doc.pointer(&at)
                .map(|r| (r, at.clone()))
                .ok_or_else(|| format!("the document has no {at}"))
        };
        let any = || match status {
            401 => Some(components("Unauthorized")),
            403 => Some(components("Forbidden")),
            _ => None,
        };
        let segments: Vec<&str> = path.split('/').collect();
        let found = doc["paths"]
            .as_object()
            .into_iter()
            .flatten()
            .find(|(template, _)| {
                let t: Vec<&str> = template.split('/').collect();
                t.len() == segments.len()
                    && t.iter().zip(&segments).all(|(t, s)| {
                        t == s || (t.starts_with('{') && t.ends_with('}') && !s.is_empty())
                    })
            });
        let Some((template, item)) = found else {
            if let Some(r) = any() {
                return r;
            }
            if status != 404 {
                return Err(format!(
                    "{method} {path}: no such path in the document, so 404 was due, not {status}"
                ));
            }
            return components("NotFound");
        };
        let method = method.to_ascii_lowercase();
        let Some(op) = item.get(&method) else {
            if let Some(r) = any() {
                return r;
            }
            if status != 405 {
                return Err(format!("{method} {template}: the path has no such method, so 405 was due, not {status}"));
            }
            return components("MethodNotAllowed");
        };
        let at = format!("/paths/{}/{method}/responses", token(template));
        let responses = &op["responses"];
        let wildcard = format!("{}XX", status / 100);
        let key = [status.to_string(), wildcard, "default".to_string()]
            .into_iter()
            .find(|k| responses.get(k).is_some());
        match key {
            Some(k) => resolve(doc, &responses[&k], &format!("{at}/{k}")),
            None => any().unwrap_or_else(|| {
                Err(format!(
                    "{method} {template}: the document lists no {status} answer"
                ))
            }),
        }
    }

    /// Checks one answer against the document: its status is documented for the path and
    /// method, it has the documented headers, its `Content-Type` is the documented one, and
    /// its body is valid against the documented schema.
    pub fn check_answer(
        &self,
        method: &str,
        path: &str,
        status: u16,
        headers: &BTreeMap<String, String>,
        body: &[u8],
    ) -> Result<(), String> {
        let (response, at) = self.documented(method, path, status)?;
        let what = format!("{method} {path} → {status} ({at})");
        for (name, h) in response["headers"].as_object().into_iter().flatten() {
            let value = headers
                .get(&name.to_ascii_lowercase())
                .ok_or_else(|| format!("{what}: no `{name}` header"))?;
            if let Some(schema) = h.get("schema") {
                let v = self.validator(schema)?;
                let instance = Value::String(value.clone());
                let first = v.iter_errors(&instance).next().map(|e| e.to_string());
                if let Some(e) = first {
                    return Err(format!("{what}: header `{name}: {value}`: {e}"));
                }
            }
        }
        let content = response["content"].as_object();
        let Some((media, m)) = content.and_then(|c| c.iter().next()) else {
            return if body.is_empty() {
                Ok(())
            } else {
                Err(format!("{what}: a body where the document has none"))
            };
        };
        let content_type = headers
            .get("content-type")
            .map(String::as_str)
            .unwrap_or("");
        if content_type.split(';').next().map(str::trim) != Some(media.as_str()) {
            return Err(format!(
                "{what}: Content-Type `{content_type}`, not `{media}`"
            ));
        }
        let value: Value = serde_json::from_slice(body).map_err(|e| {
            format!(
                "{what}: the body is not JSON ({e}): {}",
                String::from_utf8_lossy(body)
            )
        })?;
        let schema = m
            .get("schema")
            .ok_or_else(|| format!("{what}: no schema"))?;
        let v = self.validator(schema)?;
        let errors: Vec<String> = v
            .iter_errors(&value)
            .map(|e| format!("at `{}`: {e}", e.instance_path()))
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{what}: the body does not match the document:\n  {}\nbody: {value}",
                errors.join("\n  ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn json_headers() -> BTreeMap<String, String> {
        BTreeMap::from([("content-type".to_string(), "application/json".to_string())])
    }

    #[test]
    fn the_document_is_an_openapi_3_1_document() {
        if let Err(faults) = contract().check_document() {
            panic!("{OPENAPI_FILE}:\n{}", faults.join("\n"));
        }
    }

    #[test]
    fn the_faults_the_document_had_are_caught() {
        // A plain scalar holding `: ` is no YAML.
        let line = "description: No `Authorization: Bearer` header (error `unauthorized`).";
        assert!(Contract::from_yaml(line).is_err());
        let text = std::fs::read_to_string(OPENAPI_FILE).unwrap();
        // A flow mapping whose description holds a comma: a stray key.
        let stray = text.replace(
            "description: \"The certificate's SHA-256, 64 hex digits.\"",
            "description: The certificate's SHA-256, 64 hex digits.",
        );
        let stray = stray.replace(
            "        fingerprint:\n          type: string\n          pattern: \"^[0-9a-f]{64}$\"\n          description: The certificate's SHA-256, 64 hex digits.",
            "        fingerprint: { type: string, description: The certificate's SHA-256, 64 hex digits. }",
        );
        assert_ne!(stray, text, "the stray-key case was set up");
        let faults = Contract::from_yaml(&stray)
            .unwrap()
            .check_document()
            .unwrap_err();
        assert!(
            faults.iter().any(|f| f.contains("`64 hex digits.`")),
            "{faults:?}"
        );
        // OpenAPI 3.0's `nullable`.
        let nullable = text.replace(
            "          type: [string, \"null\"]\n          description: The replay",
            "          type: string\n          nullable: true\n          description: The replay",
        );
        assert_ne!(nullable, text, "the nullable case was set up");
        let faults = Contract::from_yaml(&nullable)
            .unwrap()
            .check_document()
            .unwrap_err();
        assert!(faults.iter().any(|f| f.contains("nullable")), "{faults:?}");
        // A reference to nothing.
        let dangling = text.replace("#/components/schemas/Tokens", "#/components/schemas/Tokenz");
        let faults = Contract::from_yaml(&dangling)
            .unwrap()
            .check_document()
            .unwrap_err();
        assert!(faults.iter().any(|f| f.contains("Tokenz")), "{faults:?}");
    }

    #[test]
    fn answers_that_drift_from_the_document_are_caught() {
        let c = contract();
        let player = json!({"slot": 0, "name": "Ana", "team": 0, "connected": false,
                            "leave_reason": null});
        let summary = json!({"match_id": "m", "reason": "operator", "turns": 3,
            "created_at": 1, "ended_at": 2, "players": [player], "desyncs": 0,
            "sim_panicked": false, "sim_failed_turn": null, "replay": null, "reports": [], "lost": null});
        let ended = json!({"match_id": "m", "state": "ended", "turn": 3,
            "players_connected": 0, "spectators": 0, "desyncs": 0, "created_at": 1,
            "players": [player], "summary": summary});
        let check = |method: &str, path: &str, status: u16, body: &Value| {
            c.check_answer(
                method,
                path,
                status,
                &json_headers(),
                body.to_string().as_bytes(),
            )
        };
        check("POST", "/v1/matches/m/end", 200, &ended).unwrap();
        check("GET", "/v1/matches/m", 200, &ended).unwrap();
        // Ended without its summary: the race this contract is there to catch.
        let mut no_summary = ended.clone();
        no_summary["summary"] = Value::Null;
        check("POST", "/v1/matches/m/end", 200, &no_summary).unwrap_err();
        check("GET", "/v1/matches/m", 200, &no_summary).unwrap_err();
        // A summary that does not say whether the sim panicked.
        let mut unsaid = ended.clone();
        unsaid["summary"]
            .as_object_mut()
            .expect("a summary")
            .remove("sim_panicked");
        check("GET", "/v1/matches/m", 200, &unsaid).unwrap_err();
        // A property the document does not have, or one missing.
        let mut extra = ended.clone();
        extra["colour"] = json!("red");
        check("GET", "/v1/matches/m", 200, &extra).unwrap_err();
        check(
            "GET",
            "/v1/matches/m",
            404,
            &json!({"error": "unknown_match"}),
        )
        .unwrap_err();
        // An error code the document does not list; a status it does not.
        let e = json!({"error": "teapot", "message": "x"});
        check("GET", "/v1/matches/m", 404, &e).unwrap_err();
        let e = json!({"error": "bad_request", "message": "x"});
        check("GET", "/v1/server", 400, &e).unwrap_err();
        // A method a path does not have: 405 with `Allow`; a path not listed: 404.
        let e = json!({"error": "method_not_allowed", "message": "x"});
        check("DELETE", "/v1/matches", 405, &e).unwrap_err();
        let mut with_allow = json_headers();
        with_allow.insert("allow".into(), "GET,HEAD,POST".into());
        c.check_answer(
            "DELETE",
            "/v1/matches",
            405,
            &with_allow,
            e.to_string().as_bytes(),
        )
        .unwrap();
        check("GET", "/v2/nothing", 200, &json!({})).unwrap_err();
        // Not JSON.
        let text = BTreeMap::from([("content-type".to_string(), "text/plain".to_string())]);
        c.check_answer("GET", "/v1/matches/%FF", 400, &text, b"Invalid URL")
            .unwrap_err();
    }
}
