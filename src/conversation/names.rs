//! Enums whose variants have names of the spec's vocabulary (`understanding`, `user satisfied`):
//! each name is written once, in the enum's declaration, and everything that spells it comes
//! from there: `as_str`, `from_name`, `ALL`, `Display`, serde and the JSON Schema.

/// Declares a field-less enum with a name per variant:
///
/// ```ignore
/// named! {
///     /// Who wrote a message.
///     pub enum Role {
///         User = "user",
///         Assistant = "assistant",
///     }
/// }
/// ```
macro_rules! named {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// Every name, in declaration order.
            pub const NAMES: [&'static str; [$($text),+].len()] = [$($text),+];

            /// The name, as the spec and the wire write it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// The variant of a name.
            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $( $text => Some($name::$variant), )+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                $name::from_name(&name).ok_or_else(|| {
                    <D::Error as serde::de::Error>::unknown_variant(&name, &$name::NAMES)
                })
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "enum": $name::NAMES,
                })
            }
        }
    };
}

pub(crate) use named;
