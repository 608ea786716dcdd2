//! Which requests an endpoint family takes: a URL pattern (the JavaScript shell's string syntax)
//! and methods, or a function; the worksheet also tries them on each other's samples (shadowing).

/// A family's URL pattern, as js/api/families.js reads a string: `*` any run, `:name` one path
/// segment (no `/`, `?`, `#`); the query and fragment count only where the pattern has `?` or `#`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlPattern {
    text: String,
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    Any,
    Segment,
}

impl UrlPattern {
    /// The pattern `text` (every string is one: what is not `*` or `:name` is literal).
    pub fn new(text: &str) -> UrlPattern {
        let (mut parts, mut literal) = (Vec::new(), String::new());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let name = c == ':' && chars.peek().is_some_and(|n| n.is_ascii_alphabetic() || *n == '_');
            if c != '*' && !name {
                literal.push(c);
                continue;
            }
            if !literal.is_empty() {
                parts.push(Part::Text(core::mem::take(&mut literal)));
            }
            while name && chars.peek().is_some_and(|n| n.is_ascii_alphanumeric() || *n == '_') {
                chars.next();
            }
            parts.push(if name { Part::Segment } else { Part::Any });
        }
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        UrlPattern { text: text.to_owned(), parts }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `url` matches the whole pattern (its query and fragment aside, unless named).
    pub fn matches(&self, url: &str) -> bool {
        let bytes = url.as_bytes();
        // Every position the parts so far can end at: one pass a part, no backtracking.
        let mut at = vec![false; bytes.len() + 1];
        at[0] = true;
        for part in &self.parts {
            let mut next = vec![false; bytes.len() + 1];
            for i in (0..=bytes.len()).filter(|&i| at[i]) {
                let rest = bytes.get(i..).unwrap_or_default();
                let reach = match part {
                    Part::Text(t) if rest.starts_with(t.as_bytes()) => i + t.len()..=i + t.len(),
                    Part::Text(_) => continue,
                    Part::Any => i..=bytes.len(),
                    Part::Segment => i + 1..=i + rest.iter().take_while(|b| !matches!(b, b'/' | b'?' | b'#')).count(),
                };
                next.get_mut(reach).unwrap_or_default().iter_mut().for_each(|n| *n = true);
            }
            at = next;
        }
        let whole = self.text.contains(['?', '#']);
        let ends_here = |k: usize| k == bytes.len() || (!whole && matches!(bytes.get(k), Some(b'?' | b'#')));
        at.iter().enumerate().any(|(k, &reached)| reached && ends_here(k))
    }

    /// A URL the pattern matches (each `*` and `:name` an `x`): what an earlier family is tried on.
    pub fn sample(&self) -> String {
        let part = |p: &Part| match p {
            Part::Text(t) => t.clone(),
            Part::Any | Part::Segment => "x".to_owned(),
        };
        self.parts.iter().map(part).collect()
    }

    /// The origin the pattern names literally (`https://host[:port]`), if it does: its default scope.
    pub fn origin(&self) -> Option<&str> {
        let rest = self.text.strip_prefix("https://").or_else(|| self.text.strip_prefix("http://"))?;
        let bytes = rest.as_bytes();
        let host = bytes.iter().take_while(|b| !matches!(b, b'/' | b'*' | b':' | b'?' | b'#')).count();
        let digits = bytes.get(host + 1..).unwrap_or_default().iter().take_while(|b| b.is_ascii_digit()).count();
        let port = if bytes.get(host) == Some(&b':') && digits > 0 { digits + 1 } else { 0 };
        let scheme = self.text.len() - rest.len();
        self.text.get(..scheme + host + port).filter(|_| host > 0)
    }
}

/// A family's match as a function of the method and the URL.
pub type MatchFn = std::rc::Rc<dyn Fn(&str, &str) -> bool>;

/// Which requests a family takes: methods and a URL pattern, or a function of method and URL.
#[derive(Clone)]
pub enum Match {
    /// A request by one of the methods at a URL the pattern matches.
    Request {
        /// Upper case; empty: any method.
        methods: Vec<String>,
        /// `None`: any URL.
        url: Option<UrlPattern>,
    },
    /// `true` from the function of the method and the URL.
    Function(MatchFn),
}

impl Match {
    /// Requests by any of `methods` (upper-cased; none: any method) at a URL `url` matches (`None`: any URL).
    pub fn new(methods: &[&str], url: Option<&str>) -> Match {
        let methods = methods.iter().map(|m| m.to_ascii_uppercase()).collect();
        Match::Request { methods, url: url.map(UrlPattern::new) }
    }

    /// Any request at a URL `pattern` matches.
    pub fn url(pattern: &str) -> Match {
        Match::new(&[], Some(pattern))
    }

    /// The requests for which `test(method, url)` is true.
    pub fn function(test: impl Fn(&str, &str) -> bool + 'static) -> Match {
        Match::Function(std::rc::Rc::new(test))
    }

    /// Whether the request `method url` is the family's.
    pub fn test(&self, method: &str, url: &str) -> bool {
        match self {
            Match::Request { methods, url: pattern } => {
                (methods.is_empty() || methods.iter().any(|m| m == method))
                    && pattern.as_ref().map_or(true, |p| p.matches(url))
            }
            Match::Function(test) => test(method, url),
        }
    }

    /// How the worksheet shows it: `POST/DELETE https://…/order`, `* https://…/*`, `a function`.
    pub fn text(&self) -> String {
        match self {
            Match::Request { methods, url } => {
                let methods = if methods.is_empty() { "*".to_owned() } else { methods.join("/") };
                crate::text::join(&[&methods, " ", url.as_ref().map_or("*", UrlPattern::as_str)])
            }
            Match::Function(_) => "a function".to_owned(),
        }
    }
}

impl core::fmt::Debug for Match {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.text())
    }
}
