//! Composite notification URLs in shoutrrr's formats, built from a
//! notification type's fields when it is saved (Mission Control keeps these
//! in `url`). Senders read the fields; the URL is kept for parity and export.
//! Every part taken from a field is percent-encoded.

use crate::catalogue::ConnectionType;
use crate::types::{self, Values};

/// The URL of a notification type from its fields in plain text; `None` for
/// other types or when the fields do not parse.
pub fn composite(kind: ConnectionType, values: &Values) -> Option<String> {
    use ConnectionType as T;
    let url = match kind {
        T::Discord => discord(&types::Discord::parse(values).ok()?),
        T::Email => email(&types::Email::parse(values).ok()?),
        T::GoogleChat => google_chat(&types::GoogleChat::parse(values).ok()?),
        T::Ifttt => ifttt(&types::Ifttt::parse(values).ok()?),
        T::Mattermost => mattermost(&types::Mattermost::parse(values).ok()?),
        T::Matrix => matrix(&types::Matrix::parse(values).ok()?),
        T::Ntfy => ntfy(&types::Ntfy::parse(values).ok()?),
        T::Opsgenie => opsgenie(&types::Opsgenie::parse(values).ok()?),
        T::Pushbullet => pushbullet(&types::Pushbullet::parse(values).ok()?),
        T::Pushover => pushover(&types::Pushover::parse(values).ok()?),
        T::Rocketchat => rocketchat(&types::Rocketchat::parse(values).ok()?),
        T::Slack => slack(&types::Slack::parse(values).ok()?),
        T::Teams => teams(&types::Teams::parse(values).ok()?),
        T::Telegram => telegram(&types::Telegram::parse(values).ok()?),
        T::ZulipChat => zulip(&types::ZulipChat::parse(values).ok()?),
        _ => return None,
    };
    Some(url)
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `user@` or `user:password@`, or nothing.
fn userinfo(user: Option<&str>, password: Option<&str>) -> String {
    match (user, password) {
        (None, None) => String::new(),
        (user, None) => format!("{}@", encode(user.unwrap_or_default())),
        (user, Some(password)) => {
            format!("{}:{}@", encode(user.unwrap_or_default()), encode(password))
        }
    }
}

/// Comma-separated items, each encoded, commas kept.
fn list(items: &str) -> Vec<String> {
    items
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(encode)
        .collect()
}

pub fn discord(c: &types::Discord) -> String {
    format!("discord://{}@{}", encode(&c.token), encode(&c.webhook_id))
}

pub fn email(c: &types::Email) -> String {
    format!(
        "smtp://{}{}:{}/?from={}&fromName={}&encryption={}&auth={}",
        userinfo(c.username.as_deref(), c.password.as_deref()),
        encode(&c.host),
        c.port,
        encode(&c.from),
        encode(&c.from_name),
        encode(&c.encryption),
        encode(&c.auth),
    )
}

pub fn google_chat(c: &types::GoogleChat) -> String {
    format!(
        "googlechat://chat.googleapis.com/v1/spaces/{}/messages?key={}&token={}",
        encode(&c.webhook_name),
        encode(&c.key),
        encode(&c.token)
    )
}

pub fn ifttt(c: &types::Ifttt) -> String {
    format!("ifttt://{}/", encode(&c.webhook_id))
}

pub fn mattermost(c: &types::Mattermost) -> String {
    let channel = c
        .channel
        .as_deref()
        .map(|channel| format!("/{}", encode(channel)))
        .unwrap_or_default();
    format!(
        "mattermost://{}{}/{}{channel}",
        userinfo(c.username.as_deref(), None),
        encode(&c.host),
        encode(&c.token)
    )
}

pub fn matrix(c: &types::Matrix) -> String {
    format!(
        "matrix://{}{}",
        userinfo(
            Some(c.user.as_deref().unwrap_or_default()),
            Some(&c.password)
        ),
        encode(&c.host)
    )
}

pub fn ntfy(c: &types::Ntfy) -> String {
    let scheme = if c.insecure_tls { "?scheme=http" } else { "" };
    format!(
        "ntfy://{}{}/{}{scheme}",
        userinfo(c.username.as_deref(), c.password.as_deref()),
        encode(&c.host),
        encode(&c.topic)
    )
}

pub fn opsgenie(c: &types::Opsgenie) -> String {
    format!(
        "opsgenie://{}:{}/{}",
        encode(&c.host),
        c.port,
        encode(&c.api_key)
    )
}

pub fn pushbullet(c: &types::Pushbullet) -> String {
    format!(
        "pushbullet://{}/{}",
        encode(&c.token),
        list(&c.targets).join("/")
    )
}

pub fn pushover(c: &types::Pushover) -> String {
    format!(
        "pushover://shoutrrr:{}@{}/",
        encode(&c.token),
        encode(&c.user)
    )
}

pub fn rocketchat(c: &types::Rocketchat) -> String {
    format!(
        "rocketchat://{}{}:{}/{}/{}/{}",
        userinfo(c.username.as_deref(), None),
        encode(&c.host),
        c.port,
        encode(&c.token_a),
        encode(&c.token_b),
        encode(&c.channel)
    )
}

pub fn slack(c: &types::Slack) -> String {
    format!(
        "slack://{}{}/{}",
        userinfo(c.bot_name.as_deref(), None),
        encode(&c.token),
        encode(&c.channel)
    )
}

pub fn teams(c: &types::Teams) -> String {
    format!(
        "teams://{}{}/{}/{}?host={}",
        userinfo(c.group.as_deref(), None),
        encode(&c.tenant),
        encode(&c.alt_id),
        encode(&c.group_owner),
        encode(&c.host)
    )
}

pub fn telegram(c: &types::Telegram) -> String {
    format!(
        "telegram://{}@telegram?chats={}",
        encode(&c.token),
        list(&c.chats).join(",")
    )
}

pub fn zulip(c: &types::ZulipChat) -> String {
    format!(
        "zulip://{}{}",
        userinfo(
            Some(c.bot_email.as_deref().unwrap_or_default()),
            Some(&c.bot_key)
        ),
        encode(&c.host)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_all_but_unreserved() {
        assert_eq!(encode("a-b.c_d~e"), "a-b.c_d~e");
        assert_eq!(
            encode("p@ss:w/rd?#&= +"),
            "p%40ss%3Aw%2Frd%3F%23%26%3D%20%2B"
        );
        assert_eq!(encode("é"), "%C3%A9");
    }

    #[test]
    fn slack_with_and_without_a_bot_name() {
        let mut c = types::Slack {
            channel: "#alerts".into(),
            token: "xoxb-1/2".into(),
            bot_name: Some("qd bot".into()),
        };
        assert_eq!(slack(&c), "slack://qd%20bot@xoxb-1%2F2/%23alerts");
        c.bot_name = None;
        assert_eq!(slack(&c), "slack://xoxb-1%2F2/%23alerts");
    }

    #[test]
    fn email_carries_every_setting() {
        let c = types::Email {
            host: "smtp.example.com".into(),
            port: 587,
            from: "qd@example.com".into(),
            from_name: "Quarterdeck Alerts".into(),
            username: Some("qd@example.com".into()),
            password: Some("p@ss:word".into()),
            encryption: "Auto".into(),
            auth: "Unknown".into(),
            insecure_tls: false,
        };
        assert_eq!(
            email(&c),
            "smtp://qd%40example.com:p%40ss%3Aword@smtp.example.com:587/\
             ?from=qd%40example.com&fromName=Quarterdeck%20Alerts&encryption=Auto&auth=Unknown"
        );
    }

    #[test]
    fn the_other_notification_urls() {
        let discord_url = discord(&types::Discord {
            webhook_id: "123".into(),
            token: "t/k".into(),
        });
        assert_eq!(discord_url, "discord://t%2Fk@123");
        let chat = google_chat(&types::GoogleChat {
            webhook_name: "AAA".into(),
            key: "k+1".into(),
            token: "t=2".into(),
        });
        assert_eq!(
            chat,
            "googlechat://chat.googleapis.com/v1/spaces/AAA/messages?key=k%2B1&token=t%3D2"
        );
        assert_eq!(
            ifttt(&types::Ifttt {
                webhook_id: "w1".into()
            }),
            "ifttt://w1/"
        );
        let mm = mattermost(&types::Mattermost {
            host: "chat.example.com".into(),
            username: Some("bot".into()),
            token: "tok".into(),
            channel: Some("ops".into()),
        });
        assert_eq!(mm, "mattermost://bot@chat.example.com/tok/ops");
        let mx = matrix(&types::Matrix {
            host: "matrix.org".into(),
            user: None,
            password: "s3cr3t!".into(),
            insecure_tls: false,
        });
        assert_eq!(mx, "matrix://:s3cr3t%21@matrix.org");
        let mut n = types::Ntfy {
            host: "ntfy.sh".into(),
            topic: "alerts".into(),
            username: None,
            password: None,
            insecure_tls: false,
        };
        assert_eq!(ntfy(&n), "ntfy://ntfy.sh/alerts");
        n.insecure_tls = true;
        n.username = Some("u".into());
        n.password = Some("p w".into());
        assert_eq!(ntfy(&n), "ntfy://u:p%20w@ntfy.sh/alerts?scheme=http");
        let og = opsgenie(&types::Opsgenie {
            host: "api.opsgenie.com".into(),
            port: 443,
            api_key: "key/1".into(),
        });
        assert_eq!(og, "opsgenie://api.opsgenie.com:443/key%2F1");
        let pb = pushbullet(&types::Pushbullet {
            token: "tok".into(),
            targets: "phone, #ops ,me@example.com".into(),
        });
        assert_eq!(pb, "pushbullet://tok/phone/%23ops/me%40example.com");
        let po = pushover(&types::Pushover {
            user: "u1".into(),
            token: "t1".into(),
        });
        assert_eq!(po, "pushover://shoutrrr:t1@u1/");
        let rc = rocketchat(&types::Rocketchat {
            host: "rc.example.com".into(),
            port: 3000,
            username: None,
            token_a: "A".into(),
            token_b: "B".into(),
            channel: "#general".into(),
        });
        assert_eq!(rc, "rocketchat://rc.example.com:3000/A/B/%23general");
        let tm = teams(&types::Teams {
            group: Some("g".into()),
            tenant: "t".into(),
            alt_id: "a".into(),
            group_owner: "o".into(),
            host: "outlook.office.com".into(),
        });
        assert_eq!(tm, "teams://g@t/a/o?host=outlook.office.com");
        let tg = telegram(&types::Telegram {
            token: "1:AA".into(),
            chats: "@ops, 42".into(),
        });
        assert_eq!(tg, "telegram://1%3AAA@telegram?chats=%40ops,42");
        let zu = zulip(&types::ZulipChat {
            host: "org.zulipchat.com".into(),
            bot_email: Some("bot@org.zulipchat.com".into()),
            bot_key: "k".into(),
        });
        assert_eq!(zu, "zulip://bot%40org.zulipchat.com:k@org.zulipchat.com");
    }
}
