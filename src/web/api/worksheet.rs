//! [`Client::worksheet`]: what this client's configuration decides, family by family, computed
//! by the core's [`Plan`] from the policy and budget the calls will actually run.

use super::client::Client;
use super::family::Family;
use crate::budget::{Budget, Priority};
use crate::classify::OperationKind;
use crate::web::platform::clock;
use crate::worksheet::{Match, Plan, Row, UrlPattern, Worksheet};

impl Client {
    /// One row per family, in order, then one for requests no family matches; each with the
    /// flags a risk reviewer must see. [`Worksheet::to_markdown`] prints it as the JavaScript one.
    pub fn worksheet(&self) -> Worksheet {
        let (budget, today) = (self.executor.budget.borrow(), clock::wall_now());
        let families: Vec<(&str, &Match)> = self.families.iter().map(|f| (f.name(), &f.matcher)).collect();
        let mut rows: Vec<Row> =
            self.families.iter().enumerate().map(|(i, f)| self.row(Some(f), &families[..i], &budget, today)).collect();
        rows.push(self.row(None, &families, &budget, today));
        Worksheet { rows }
    }

    /// The row of `family` (`None`: the client's defaults), planned as a request it takes would run.
    fn row(&self, family: Option<&Family>, earlier: &[(&str, &Match)], budget: &Budget, today: u64) -> Row {
        let (methods, url) = match family.map(|f| &f.matcher) {
            Some(Match::Request { methods, url }) => (methods.as_slice(), url.as_ref()),
            _ => (&[][..], None),
        };
        // The method and origin a request of the family would have, as the JavaScript dry run uses.
        let method = methods.first().map_or("GET", String::as_str);
        let kind = family.and_then(|f| f.operation).unwrap_or_else(|| OperationKind::from_method(method));
        let priority = family.and_then(|f| f.priority).unwrap_or(Priority::for_kind(kind));
        let origin = url.and_then(UrlPattern::origin);
        let scope = family.and_then(|f| f.scope.as_deref()).or(origin).unwrap_or("https://any.origin");
        let weight = family.and_then(|f| f.weight).unwrap_or(1);
        let client = &self.defaults.policy;
        let policy = family.map_or_else(|| client.clone(), |f| f.policy_over(client));
        let plan = Plan::of(&policy, kind, priority, scope, weight, budget);
        let mut row = Row::of(&plan, family.map(Family::declared).as_ref(), earlier, today);
        if let Some(names) = family.and_then(|f| f.provider_wait_headers.as_ref()) {
            row.provider_wait_headers.clone_from(names);
        }
        row
    }
}
